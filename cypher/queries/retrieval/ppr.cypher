// Personalized PageRank from the question's entities and the top chunks; chunks ranked by it.
// Only sources the projection holds (a chunk that mentions an entity, an entity mentioned or
// linked) seed the walk; with none, no rows.
// params: $name, $sourceIds, $k, $corpus, $from, $to, $damping
// returns: chunkId, documentId, title, uri, text, score
CALL () {
  MATCH (c:Chunk) WHERE c.id IN $sourceIds AND EXISTS { (c)-[:MENTIONS]->(:__Entity__) } RETURN c AS n
  UNION
  MATCH (e:__Entity__) WHERE e.id IN $sourceIds
    AND (EXISTS { (:Chunk)-[:MENTIONS]->(e) } OR EXISTS { (e)--(:__Entity__) })
  RETURN e AS n
}
WITH collect(n) AS sources
WHERE size(sources) > 0
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
