// The similarity of each evidence chunk's stored vector to the question's vector, for the score gate.
// params: $ids, $embedding
// returns: chunkId, similarity (vector.similarity.cosine, 0..1; null for a chunk without a vector)
UNWIND $ids AS id
MATCH (c:Chunk {id: id})
RETURN c.id AS chunkId,
       CASE WHEN c.embedding IS NULL THEN null ELSE vector.similarity.cosine(c.embedding, $embedding) END AS similarity
