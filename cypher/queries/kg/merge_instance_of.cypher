// Story-local entity -> its canonical entity ({canonical: true}).
// params: $rows
// returns: links
UNWIND $rows AS row
MATCH (e:__Entity__ {id: row.id})
MATCH (c:__Entity__ {id: row.canonicalId})
MERGE (e)-[r:INSTANCE_OF]->(c)
ON CREATE SET r.source = row.source
RETURN count(r) AS links
