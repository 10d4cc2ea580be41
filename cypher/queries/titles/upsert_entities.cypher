// Titles as entities: one :__Entity__:Topic per distinct normalised title, linked to the
// chunks of the documents that carry it (the passage *about* the topic).
// params: $rows, $at
// returns: entities, mentions
UNWIND $rows AS row
MERGE (e:__Entity__ {id: row.entityId})
ON CREATE SET e.name = row.title, e.normName = row.normName, e.type = 'Topic', e.source = 'title'
SET e:Topic
WITH e, row
UNWIND row.chunkIds AS chunkId
MATCH (c:Chunk {id: chunkId})
MERGE (c)-[m:MENTIONS]->(e)
ON CREATE SET m.rule = 'own-title', m.matched = row.title, m.source = 'title', m.at = $at
RETURN count(DISTINCT e) AS entities, count(m) AS mentions
