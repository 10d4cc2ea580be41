// A wiki page describes the entity it is about; the entity keeps the page's id. A records file's
// document (`row.own` false) describes the entities it names without being their own page.
// params: $rows
// returns: links
UNWIND $rows AS row
MATCH (d:Document {id: row.documentId})
MATCH (e:__Entity__ {id: row.entityId})
MERGE (d)-[r:DESCRIBES]->(e)
ON CREATE SET r.source = row.source
SET e.documentId = coalesce(e.documentId, CASE WHEN coalesce(row.own, true) THEN row.documentId END)
RETURN count(r) AS links
