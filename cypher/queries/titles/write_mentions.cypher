// One batch of the title linker's changes, in one transaction: new edges ($create; on an edge
// the entity linker made, the title rule is kept beside its own as titleRule / titleMatched),
// changed ones ($update), ones no longer made ($remove: deleted, or on the entity linker's
// edge the title rule dropped), and the chunks done ($done) lose :PendingTitles.
// params: $create, $update, $remove, $done, $at
// returns: created, updated, removed, done
CALL () {
  UNWIND $create AS row
  MATCH (c:Chunk {id: row.chunkId})
  MATCH (e:__Entity__ {id: row.entityId})
  OPTIONAL MATCH (c)-[other:MENTIONS]->(e)
  FOREACH (_ IN CASE WHEN other IS NULL THEN [1] ELSE [] END |
    CREATE (c)-[m:MENTIONS]->(e)
    SET m.rule = row.rule, m.matched = row.matched, m.source = 'title', m.at = $at)
  FOREACH (_ IN CASE WHEN other IS NOT NULL AND coalesce(other.source, '') <> 'title' THEN [1] ELSE [] END |
    SET other.titleRule = row.rule, other.titleMatched = row.matched)
  RETURN sum(CASE WHEN other IS NULL THEN 1 ELSE 0 END) AS created
}
CALL () {
  UNWIND $update AS row
  MATCH (:Chunk {id: row.chunkId})-[m:MENTIONS]->(:__Entity__ {id: row.entityId})
  WITH m, row, m.source = 'title' AS own
  FOREACH (_ IN CASE WHEN own THEN [1] ELSE [] END | SET m.rule = row.rule, m.matched = row.matched)
  FOREACH (_ IN CASE WHEN own THEN [] ELSE [1] END | SET m.titleRule = row.rule, m.titleMatched = row.matched)
  RETURN count(m) AS updated
}
CALL () {
  UNWIND $remove AS row
  MATCH (:Chunk {id: row.chunkId})-[m:MENTIONS]->(:__Entity__ {id: row.entityId})
  WHERE m.source = 'title'
  DELETE m
  RETURN count(*) AS deleted
}
CALL () {
  UNWIND $remove AS row
  MATCH (:Chunk {id: row.chunkId})-[m:MENTIONS]->(:__Entity__ {id: row.entityId})
  WHERE coalesce(m.source, '') <> 'title' AND m.titleRule IS NOT NULL
  REMOVE m.titleRule, m.titleMatched
  RETURN count(*) AS dropped
}
CALL () {
  UNWIND $done AS id
  MATCH (c:Chunk {id: id})
  WHERE c:PendingTitles
  REMOVE c:PendingTitles
  RETURN count(c) AS done
}
RETURN created, updated, deleted + dropped AS removed, done
