// Vector search over chunk embeddings, filtered by corpus and document date.
// With $about (entity ids: only chunks that MENTION one of them) the index is not asked: a list of
// its nearest chunks, filtered afterwards, may hold none of the entity's. The entity's chunks are
// ranked by the same cosine instead (vector.similarity.cosine, the score the cosine index gives);
// they are few, where the index covers every chunk. A null $about costs nothing.
// Run it in Neo4j Browser: :param embedding => [...384 floats]; :param k => 5; :param fetch => 50;
// :param corpus => null; :param from => null; :param to => null; :param about => null
// params: $embedding, $k, $fetch, $corpus, $from, $to, $about, $scope
// returns: chunkId, documentId, title, uri, text, score
CALL () {
  WITH $about AS about WHERE about IS NULL
  CALL db.index.vector.queryNodes('chunk_embedding', $fetch, $embedding) YIELD node AS c, score
  RETURN c, score
  UNION ALL
  UNWIND coalesce($about, []) AS entityId
  MATCH (:__Entity__ {id: entityId})<-[:MENTIONS]-(c:Chunk)
  WITH DISTINCT c
  WITH c, vector.similarity.cosine(c.embedding, $embedding) AS score
  WHERE score IS NOT NULL
  RETURN c, score
}
MATCH (c)-[:FROM_DOCUMENT]->(d:Document)
WHERE ($corpus IS NULL OR d.corpus = $corpus) AND ($scope IS NULL OR d.corpus IN $scope)
  AND ($from IS NULL OR d.date >= $from)
  AND ($to IS NULL OR d.date <= $to)
RETURN c.id AS chunkId, d.id AS documentId, d.title AS title, d.uri AS uri, c.text AS text, score
ORDER BY score DESC
LIMIT $k
