// CO_OCCURS {count} between entities mentioned in the same chunk, counted over all chunks;
// each chunk contributes at most $maxPerChunk entities (those with the lowest ids), so a
// chunk listing hundreds of names cannot produce tens of thousands of pairs.
// params: $maxPerChunk
// returns: pairs, created
MATCH (c:Chunk)
CALL (c) {
  MATCH (c)-[:MENTIONS]->(e:__Entity__)
  WITH DISTINCT e ORDER BY e.id LIMIT $maxPerChunk
  RETURN collect(e) AS entities
}
WITH entities WHERE size(entities) > 1
UNWIND range(0, size(entities) - 2) AS i
UNWIND range(i + 1, size(entities) - 1) AS j
WITH entities[i] AS a, entities[j] AS b
WITH a, b, count(*) AS n
CALL (a, b) {
  OPTIONAL MATCH (a)-[old:CO_OCCURS]->(b)
  RETURN count(old) = 0 AS created
}
MERGE (a)-[r:CO_OCCURS]->(b)
SET r.count = n, r.source = 'chunks'
RETURN count(*) AS pairs, sum(CASE WHEN created THEN 1 ELSE 0 END) AS created
