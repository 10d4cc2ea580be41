// CO_OCCURS of the pairs $pairs ([lower id, higher id]) counted again over all chunks, as
// linkers/merge_co_occurs and prune_co_occurs would: set where some chunk counts the pair,
// removed where no chunk mentions both any more.
// params: $pairs, $maxPerChunk
// returns: pairs, created, removed
UNWIND $pairs AS p
MATCH (a:__Entity__ {id: p[0]}), (b:__Entity__ {id: p[1]})
CALL (a, b) {
  OPTIONAL MATCH (c:Chunk)-[:MENTIONS]->(a)
  WHERE EXISTS { (c)-[:MENTIONS]->(b) }
  WITH c WHERE c IS NOT NULL
  CALL (c) {
    MATCH (c)-[:MENTIONS]->(e:__Entity__)
    WITH DISTINCT e ORDER BY e.id LIMIT $maxPerChunk
    RETURN collect(e) AS top
  }
  RETURN count(c) AS shared, sum(CASE WHEN a IN top AND b IN top THEN 1 ELSE 0 END) AS n
}
OPTIONAL MATCH (a)-[old:CO_OCCURS {source: 'chunks'}]->(b)
WITH a, b, n, shared, old IS NULL AS missing
CALL (a, b, n) {
  WITH a, b, n WHERE n > 0
  MERGE (a)-[r:CO_OCCURS]->(b)
  SET r.count = n, r.source = 'chunks'
}
CALL (a, b, shared) {
  WITH a, b, shared WHERE shared = 0
  MATCH (a)-[old:CO_OCCURS {source: 'chunks'}]->(b)
  DELETE old
}
RETURN sum(CASE WHEN n > 0 THEN 1 ELSE 0 END) AS pairs,
       sum(CASE WHEN n > 0 AND missing THEN 1 ELSE 0 END) AS created,
       sum(CASE WHEN shared = 0 AND NOT missing THEN 1 ELSE 0 END) AS removed
