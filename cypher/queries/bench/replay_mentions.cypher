// Every chunk-entity mention with its rule (`graphrag link titles`), for the offline replay.
// params: none
// returns: chunk, entity, rule
MATCH (c:Chunk)-[m:MENTIONS]->(e:__Entity__)
RETURN c.id AS chunk, e.id AS entity, m.rule AS rule
