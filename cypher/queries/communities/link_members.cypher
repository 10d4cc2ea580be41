// Member edges of communities: (:Chunk|:__Entity__)-[:IN_COMMUNITY {level}]->(:Community).
// params: $rows (each {community, level, chunks: [chunk id], entities: [entity id]})
// returns: created
UNWIND $rows AS row
MATCH (c:Community {id: row.community})
CALL (row, c) {
  UNWIND row.chunks AS chunkId
  MATCH (n:Chunk {id: chunkId})
  MERGE (n)-[r:IN_COMMUNITY]->(c)
  ON CREATE SET r.level = row.level
  RETURN count(*) AS chunks
}
CALL (row, c) {
  UNWIND row.entities AS entityId
  MATCH (n:__Entity__ {id: entityId})
  MERGE (n)-[r:IN_COMMUNITY]->(c)
  ON CREATE SET r.level = row.level
  RETURN count(*) AS entities
}
RETURN sum(chunks + entities) AS created
