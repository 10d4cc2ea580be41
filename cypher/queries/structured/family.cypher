// An entity and the entities tied to it by INSTANCE_OF (a story's entity and its canonical
// one, both ways): one thing under several ids.
// params: $ids
// returns: id
UNWIND $ids AS xid
MATCH (x:__Entity__ {id: xid})
OPTIONAL MATCH (x)-[:INSTANCE_OF]-(o:__Entity__)
WITH collect(DISTINCT x.id) + collect(DISTINCT o.id) AS ids
UNWIND ids AS id
RETURN DISTINCT id
