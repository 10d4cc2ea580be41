// Chunk -[:MENTIONS]-> entity, one edge per pair, with provenance (matched, rule, source,
// linker, ambiguous, candidates) and the time it was first made (`at`). A second run with
// the same result creates nothing and changes no value.
// params: $rows
// returns: created, rows
UNWIND $rows AS row
MATCH (c:Chunk {id: row.chunkId})
MATCH (e:__Entity__ {id: row.targetId})
CALL (c, e) {
  OPTIONAL MATCH (c)-[old:MENTIONS]->(e)
  RETURN count(old) = 0 AS created
}
MERGE (c)-[m:MENTIONS]->(e)
ON CREATE SET m.at = datetime()
SET m += row.props
RETURN sum(CASE WHEN created THEN 1 ELSE 0 END) AS created, count(*) AS rows
