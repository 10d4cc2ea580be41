// Every chunk of an entity document is about its entity: (Chunk)-[:MENTIONS {rule: 'own-title'}]->
// (entity), the rule retrieval reads as "this chunk is about the entity". MERGE: a second run
// adds nothing; chunks rewritten by a regenerated document get their link again.
// params: $ids (entity document ids), $at
// returns: mentions, created
UNWIND $ids AS id
MATCH (d:EntityDocument {id: id})<-[:FROM_DOCUMENT]-(c:Chunk)
MATCH (e:__Entity__ {id: d.entityId})
MERGE (c)-[m:MENTIONS]->(e)
ON CREATE SET m.rule = 'own-title', m.source = 'entity-document', m.matched = coalesce(e.name, e.id), m.at = $at
RETURN count(m) AS mentions, sum(CASE WHEN m.at = $at THEN 1 ELSE 0 END) AS created
