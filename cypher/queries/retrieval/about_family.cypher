// An entity and its INSTANCE_OF family: the entities that are instances of it (a story's own
// entity of a canonical one) and the one it is an instance of, the entity first, then by id.
// params: $id
// returns: ids
MATCH (e:__Entity__ {id: $id})
OPTIONAL MATCH (e)-[:INSTANCE_OF]-(x:__Entity__)
WITH e, x ORDER BY x.id
WITH e.id AS id, collect(DISTINCT x.id) AS family
RETURN [id] + [i IN family WHERE i <> id] AS ids
