// neo4j-graphrag HybridCypherRetriever retrieval query with our expansion: each hybrid hit,
// then up to two chunks about topics it mentions (the title links of `graphrag link titles`).
// params: none
// returns: id, score
WITH node, score
OPTIONAL MATCH (node)-[:MENTIONS]->(e:__Entity__)<-[:MENTIONS {rule: 'own-title'}]-(about:Chunk)
WHERE about <> node
WITH node, score, collect(DISTINCT about)[0..2] AS about
UNWIND [node] + about AS c
WITH c, max(score) AS score
RETURN c.id AS id, score
ORDER BY score DESC
