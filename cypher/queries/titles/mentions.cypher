// Chunks that name another document's title on word boundaries mention its topic entity.
// params: $rows, $at
// returns: created
UNWIND $rows AS row
MATCH (c:Chunk {id: row.chunkId}), (e:__Entity__ {id: row.entityId})
MERGE (c)-[m:MENTIONS]->(e)
ON CREATE SET m.rule = 'title-in-text', m.matched = row.matched, m.source = 'title', m.at = $at
RETURN count(m) AS created
