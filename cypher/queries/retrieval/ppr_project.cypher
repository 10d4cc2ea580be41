// Project chunks and entities, linked by mentions and by entity relationships, undirected.
// params: $name
// returns: nodeCount, relationshipCount
CALL () {
  MATCH (c:Chunk)-[:MENTIONS]->(e:__Entity__)
  RETURN c AS source, e AS target
  UNION ALL
  MATCH (a:__Entity__)-[r]->(b:__Entity__)
  RETURN a AS source, b AS target
}
WITH gds.graph.project($name, source, target, {}, {undirectedRelationshipTypes: ['*']}) AS g
RETURN g.nodeCount AS nodeCount, g.relationshipCount AS relationshipCount
