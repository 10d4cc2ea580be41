// A wiki page describes the entity it is about; the entity keeps the page's id.
// params: $rows
// returns: links
UNWIND $rows AS row
MATCH (d:Document {id: row.documentId})
MATCH (e:__Entity__ {id: row.entityId})
MERGE (d)-[r:DESCRIBES]->(e)
ON CREATE SET r.source = row.source
SET e.documentId = coalesce(e.documentId, row.documentId)
RETURN count(r) AS links
