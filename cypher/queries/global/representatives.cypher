// For each community `$ids`, its in-scope member chunks nearest the community's embedding
// (cosine; chunks without a vector last, then in document order), the best one per document,
// `$per` documents per community: where a theme's representative sentence is chosen from.
// params: $ids, $per, $corpus, $labels, $exclude, $from, $to, $scope
// $scope: the corpora of the key asking (null: every corpus): a community with members of any other corpus
// is not read.
// returns: communityId, chunkId, documentId, title, uri, text, similarity
UNWIND $ids AS cid
MATCH (m:Community {id: cid})
WHERE ($scope IS NULL OR (size(coalesce(m.corpora, [])) > 0 AND all(x IN m.corpora WHERE x IN $scope)))
CALL (m) {
  MATCH (c:Chunk)-[:IN_COMMUNITY]->(m)
  MATCH (c)-[:FROM_DOCUMENT]->(d:Document)
  WHERE c.text IS NOT NULL
    AND ($corpus IS NULL OR d.corpus = $corpus) AND ($scope IS NULL OR d.corpus IN $scope)
    AND ($labels IS NULL OR any(l IN labels(d) WHERE l IN $labels))
    AND none(l IN labels(d) WHERE l IN $exclude)
    AND ($from IS NULL OR d.date >= $from)
    AND ($to IS NULL OR d.date <= $to)
  WITH d, c,
       CASE WHEN m.embedding IS NULL OR c.embedding IS NULL THEN null
            ELSE vector.similarity.cosine(c.embedding, m.embedding) END AS similarity
  ORDER BY coalesce(similarity, -2.0) DESC, c.index, c.id
  WITH d, collect({chunk: c, similarity: similarity})[0] AS best
  ORDER BY coalesce(best.similarity, -2.0) DESC, d.id
  LIMIT $per
  RETURN d, best
}
RETURN m.id AS communityId, best.chunk.id AS chunkId, d.id AS documentId, d.title AS title, d.uri AS uri,
       best.chunk.text AS text, best.similarity AS similarity
