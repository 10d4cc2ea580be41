// The given chunks as stored: labels, properties, their document and the next chunk.
// params: $ids
// returns: id, labels, properties, document, next
UNWIND $ids AS id
MATCH (c:Chunk {id: id})
OPTIONAL MATCH (c)-[:FROM_DOCUMENT]->(d:Document)
OPTIONAL MATCH (c)-[:NEXT_CHUNK]->(n:Chunk)
RETURN id, labels(c) AS labels, properties(c) AS properties, d.id AS document, n.id AS next
