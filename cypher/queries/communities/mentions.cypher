// One page of chunk-entity mentions in chunk id order after $after (top entities of communities):
// entities below $minConfidence (NER's guesses of a type it is seldom right about; a confidence
// that is no number, or none, counts as 1.0) are not named in reports.
// params: $after, $limit, $minConfidence
// returns: chunk, entities (each {id, name})
MATCH (c:Chunk)
WHERE c.id > $after AND EXISTS { (c)-[:MENTIONS]->(x:__Entity__) WHERE coalesce(toFloatOrNull(x.confidence), 1.0) >= $minConfidence }
WITH c ORDER BY c.id LIMIT $limit
RETURN c.id AS chunk, COLLECT { MATCH (c)-[:MENTIONS]->(e:__Entity__) WHERE coalesce(toFloatOrNull(e.confidence), 1.0) >= $minConfidence RETURN DISTINCT {id: e.id, name: coalesce(e.name, e.id)} } AS entities
