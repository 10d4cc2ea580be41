// Titles as entities: one :__Entity__:Topic per distinct folded title, named after the first
// document (by id) that carries it.
// params: $rows
// returns: entities
UNWIND $rows AS row
MERGE (e:__Entity__ {id: row.entityId})
SET e.name = row.title, e.normName = row.normName, e.type = 'Topic', e.source = 'title'
SET e:Topic
RETURN count(e) AS entities
