// The relationship types between entities, each with how many edges it has and the labels
// found at its two ends (a bounded sample: the catalog of what questions may ask about).
// params: $sample, $skip (structural types that are not relations between things)
// returns: type, edges, sources, targets
CALL db.relationshipTypes() YIELD relationshipType AS type
WITH type WHERE NOT type IN $skip
CALL (type) {
  MATCH (a:__Entity__)-[r]->(b:__Entity__) WHERE type(r) = type
  WITH a, b LIMIT $sample
  UNWIND labels(a) AS sl
  WITH b, collect(DISTINCT sl) AS sls
  UNWIND labels(b) AS tl
  RETURN reduce(s = [], x IN collect(sls) | s + [l IN x WHERE NOT l IN s]) AS sources, collect(DISTINCT tl) AS targets
}
CALL (type) {
  MATCH ()-[r]->() WHERE type(r) = type
  RETURN count(r) AS edges
}
RETURN type, edges, [l IN sources WHERE l <> '__Entity__'] AS sources, [l IN targets WHERE l <> '__Entity__'] AS targets
