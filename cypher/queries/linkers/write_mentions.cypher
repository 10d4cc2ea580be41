// One batch of a linker's changes, in one transaction: new edges (one per chunk and entity,
// with the time first made, `at`), edges whose properties changed (`at` kept) and edges to
// remove. Unchanged edges are not sent at all, so a repeated run writes nothing. A title
// linker's edge (source 'title') taken over keeps its title rule as titleRule / titleMatched,
// and is given back to the title linker, not deleted, when this linker no longer makes it.
// params: $create, $update, $remove, $linker
// returns: created, updated, removed
CALL () {
  UNWIND $create AS row
  MATCH (c:Chunk {id: row.chunkId})
  MATCH (e:__Entity__ {id: row.targetId})
  OPTIONAL MATCH (c)-[other:MENTIONS]->(e)  // another source's edge: this linker's from now on
  FOREACH (_ IN CASE WHEN other IS NULL THEN [1] ELSE [] END |
    CREATE (c)-[m:MENTIONS]->(e)
    SET m = row.props, m.at = datetime())
  FOREACH (_ IN CASE WHEN other IS NULL THEN [] ELSE [1] END |
    SET other.titleRule = CASE WHEN other.source = 'title' THEN other.rule ELSE other.titleRule END,
        other.titleMatched = CASE WHEN other.source = 'title' THEN other.matched ELSE other.titleMatched END
    SET other += row.props)
  RETURN sum(CASE WHEN other IS NULL THEN 1 ELSE 0 END) AS created
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
  WHERE m.linker = $linker AND m.titleRule IS NULL
  DELETE m
  RETURN count(*) AS deleted
}
CALL () {
  UNWIND $remove AS row
  MATCH (:Chunk {id: row.chunkId})-[m:MENTIONS]->(:__Entity__ {id: row.targetId})
  WHERE m.linker = $linker AND m.titleRule IS NOT NULL
  SET m = {rule: m.titleRule, matched: m.titleMatched, source: 'title', at: m.at}
  RETURN count(*) AS returned
}
RETURN created, updated, deleted + returned AS removed
