// One page of chunk-entity mentions in chunk id order after $after (top entities of communities).
// params: $after, $limit
// returns: chunk, entities (each {id, name})
MATCH (c:Chunk)
WHERE c.id > $after AND EXISTS { (c)-[:MENTIONS]->(:__Entity__) }
WITH c ORDER BY c.id LIMIT $limit
RETURN c.id AS chunk, COLLECT { MATCH (c)-[:MENTIONS]->(e:__Entity__) RETURN DISTINCT {id: e.id, name: coalesce(e.name, e.id)} } AS entities
