// The chunks just before and after the seed chunks, with their similarity to the question.
// params: $seedIds, $embedding
// returns: seedId, chunkId, documentId, title, uri, text, similarity
UNWIND $seedIds AS seedId
MATCH (s:Chunk {id: seedId})-[:NEXT_CHUNK]-(n:Chunk)-[:FROM_DOCUMENT]->(d:Document)
RETURN seedId, n.id AS chunkId, d.id AS documentId, d.title AS title, d.uri AS uri, n.text AS text,
       vector.similarity.cosine(n.embedding, $embedding) AS similarity
