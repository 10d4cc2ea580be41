// One batch of a linker's changes, in one transaction: new edges (one per chunk and entity,
// with the time first made, `at`), edges whose properties changed (`at` kept) and edges to
// remove. Unchanged edges are not sent at all, so a repeated run writes nothing.
// params: $create, $update, $remove, $linker
// returns: created, updated, removed
CALL () {
  UNWIND $create AS row
  MATCH (c:Chunk {id: row.chunkId})
  MATCH (e:__Entity__ {id: row.targetId})
  WITH row, c, e, EXISTS { (c)-[:MENTIONS]->(e) } AS existed
  MERGE (c)-[m:MENTIONS]->(e)
  ON CREATE SET m.at = datetime()
  SET m += row.props
  RETURN sum(CASE WHEN existed THEN 0 ELSE 1 END) AS created
}
CALL () {
  UNWIND $update AS row
  MATCH (:Chunk {id: row.chunkId})-[m:MENTIONS]->(:__Entity__ {id: row.targetId})
  WHERE m.linker = $linker
  SET m += row.props
  RETURN count(m) AS updated
}
CALL () {
  UNWIND $remove AS row
  MATCH (:Chunk {id: row.chunkId})-[m:MENTIONS]->(:__Entity__ {id: row.targetId})
  WHERE m.linker = $linker
  DELETE m
  RETURN count(m) AS removed
}
RETURN created, updated, removed
