// The neighbourhood personalised PageRank walks when the graphrag plugin is absent (the same
// as graphrag.ppr's): the seeds' relationships of $types (either direction), then those of the
// nodes they reach, never entering a node with more than $maxDegree such relationships unless
// it is a seed. One row per relationship: its ends by element id, with their `id`, whether
// each is a seed and whether it is a chunk.
// params: $seedIds, $types, $maxDegree
// returns: source, target, type, sourceId, targetId, sourceSeed, targetSeed, sourceChunk, targetChunk
MATCH (s)
WHERE (s:Chunk OR s:__Entity__) AND s.id IN $seedIds
WITH collect(DISTINCT s) AS seeds
CALL (seeds) {
  UNWIND seeds AS s
  MATCH (s)-[r]-(m)
  WHERE type(r) IN $types
    AND (m IN seeds OR COUNT { (m)-[x]-() WHERE type(x) IN $types } <= $maxDegree)
  WITH seeds, collect(DISTINCT r) AS near, collect(DISTINCT m) AS hop
  RETURN near, [m IN hop WHERE NOT m IN seeds] AS reached
}
CALL (seeds, reached) {
  UNWIND reached AS u
  MATCH (u)-[r]-(v)
  WHERE type(r) IN $types
    AND (v IN seeds OR COUNT { (v)-[x]-() WHERE type(x) IN $types } <= $maxDegree)
  RETURN collect(DISTINCT r) AS far
}
UNWIND near + far AS r
WITH DISTINCT seeds, r
WITH seeds, r, startNode(r) AS a, endNode(r) AS b
RETURN elementId(a) AS source, elementId(b) AS target, type(r) AS type, a.id AS sourceId, b.id AS targetId,
       a IN seeds AS sourceSeed, b IN seeds AS targetSeed, a:Chunk AS sourceChunk, b:Chunk AS targetChunk
