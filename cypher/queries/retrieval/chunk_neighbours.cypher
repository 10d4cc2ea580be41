// The text of the chunks just before and just after each given chunk in its document
// (NEXT_CHUNK): the abstention's window, so a fact cut by a chunk boundary is still one passage.
// params: $ids (chunk ids)
// returns: chunkId, before, after (null at a document's ends)
UNWIND $ids AS id
MATCH (c:Chunk {id: id})
OPTIONAL MATCH (p:Chunk)-[:NEXT_CHUNK]->(c)
OPTIONAL MATCH (c)-[:NEXT_CHUNK]->(n:Chunk)
RETURN id AS chunkId, head(collect(DISTINCT p.text)) AS before, head(collect(DISTINCT n.text)) AS after
