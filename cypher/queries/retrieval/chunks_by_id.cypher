// Chunks with their documents, by id (evidence for path answers).
// params: $ids
// returns: chunkId, documentId, title, uri, text
UNWIND $ids AS id
MATCH (c:Chunk {id: id})-[:FROM_DOCUMENT]->(d:Document)
RETURN c.id AS chunkId, d.id AS documentId, d.title AS title, d.uri AS uri, c.text AS text
