// Personalized PageRank from the question's entities and the top chunks; chunks ranked by it.
// params: $name, $sourceIds, $k, $corpus, $from, $to, $damping
// returns: chunkId, documentId, title, uri, text, score
CALL () {
  MATCH (c:Chunk) WHERE c.id IN $sourceIds RETURN c AS n
  UNION
  MATCH (e:__Entity__) WHERE e.id IN $sourceIds RETURN e AS n
}
WITH collect(n) AS sources
CALL gds.pageRank.stream($name, {sourceNodes: sources, dampingFactor: $damping, maxIterations: 30})
YIELD nodeId, score
WITH gds.util.asNode(nodeId) AS c, score
WHERE c:Chunk AND score > 0
MATCH (c)-[:FROM_DOCUMENT]->(d:Document)
WHERE ($corpus IS NULL OR d.corpus = $corpus)
  AND ($from IS NULL OR d.date >= $from)
  AND ($to IS NULL OR d.date <= $to)
RETURN c.id AS chunkId, d.id AS documentId, d.title AS title, d.uri AS uri, c.text AS text, score
ORDER BY score DESC
LIMIT $k
