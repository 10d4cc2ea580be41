// The evidence subgraph of an answer, for drawing: its chunks, their documents, the entities
// the chunks mention (at most $limit) and the typed relations among those entities.
// params: $chunkIds, $limit
// returns: nodes, edges
UNWIND $chunkIds AS chunkId
MATCH (c:Chunk {id: chunkId})-[:FROM_DOCUMENT]->(d:Document)
WITH collect(DISTINCT c) AS chunks, collect(DISTINCT d) AS docs,
     collect(DISTINCT {source: c.id, target: d.id, type: 'FROM_DOCUMENT'}) AS fromDoc
CALL (chunks) {
  UNWIND chunks AS c
  MATCH (c)-[:MENTIONS]->(e:__Entity__)
  WITH c, e ORDER BY e.id
  WITH collect(DISTINCT e)[0..$limit] AS entities, collect({source: c.id, target: e.id, type: 'MENTIONS'}) AS mentions
  RETURN entities, [m IN mentions WHERE m.target IN [x IN entities | x.id]] AS mentions
}
CALL (entities) {
  UNWIND entities AS e
  MATCH (e)-[r]->(x:__Entity__)
  WHERE x IN entities AND NOT type(r) IN ['MENTIONS', 'CO_OCCURS']
  RETURN collect({source: e.id, target: x.id, type: type(r)}) AS relations
}
WITH docs + chunks + entities AS nodes, fromDoc + mentions + relations AS edges
RETURN [x IN nodes | {id: x.id, label: head([l IN labels(x) WHERE l <> '__Entity__'] + ['Node']),
                      name: coalesce(x.name, x.title, x.id)}] AS nodes, edges
