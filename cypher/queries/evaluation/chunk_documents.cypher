// The documents of retrieved chunks (to score a peer retriever's results).
// params: $ids
// returns: chunkId, documentId, title
UNWIND $ids AS id
MATCH (c:Chunk {id: id})-[:FROM_DOCUMENT]->(d:Document)
RETURN c.id AS chunkId, d.id AS documentId, d.title AS title
