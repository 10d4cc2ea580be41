// The evidence subgraph of an answer, for drawing: its chunks, their documents, the entities
// the chunks mention (at most $limit), the documents' authors (AUTHORED, at most $limit) and
// the typed relations among those entities. An entity below $minConfidence (NER's guesses of a
// type it is seldom right about; a confidence that is no number, or none, counts as 1.0) is left
// out unless the question asks for it: its id is one of $askedIds or its type one of $askedTypes.
// params: $chunkIds, $limit, $minConfidence, $askedIds, $askedTypes, $scope
// $scope: the corpora of the key asking (null: every corpus): chunks of other corpora are not drawn, nor a
// relation that was not read from one of its chunks or documents.
// returns: nodes, edges
UNWIND $chunkIds AS chunkId
MATCH (c:Chunk {id: chunkId})-[:FROM_DOCUMENT]->(d:Document)
WHERE $scope IS NULL OR d.corpus IN $scope
WITH collect(DISTINCT c) AS chunks, collect(DISTINCT d) AS docs,
     collect(DISTINCT {source: c.id, target: d.id, type: 'FROM_DOCUMENT'}) AS fromDoc
CALL (chunks) {
  UNWIND chunks AS c
  MATCH (c)-[:MENTIONS]->(e:__Entity__)
  WHERE coalesce(toFloatOrNull(e.confidence), 1.0) >= $minConfidence OR e.id IN $askedIds
     OR e.type IN $askedTypes OR any(l IN labels(e) WHERE l IN $askedTypes)
  WITH c, e ORDER BY e.id
  WITH collect(DISTINCT e)[0..$limit] AS entities, collect({source: c.id, target: e.id, type: 'MENTIONS'}) AS mentions
  RETURN entities, [m IN mentions WHERE m.target IN [x IN entities | x.id]] AS mentions
}
CALL (docs, entities) {
  UNWIND docs AS d
  MATCH (p:Person)-[:AUTHORED]->(d)
  WITH p, d ORDER BY p.id
  WITH collect(DISTINCT p)[0..$limit] AS people, collect({source: p.id, target: d.id, type: 'AUTHORED'}) AS authored
  RETURN [p IN people WHERE NOT p IN entities] AS authors, [a IN authored WHERE a.source IN [p IN people | p.id]] AS authored
}
CALL (entities) {
  UNWIND entities AS e
  MATCH (e)-[r]->(x:__Entity__)
  WHERE x IN entities AND NOT type(r) IN ['MENTIONS', 'CO_OCCURS']
    AND ($scope IS NULL OR type(r) = 'INSTANCE_OF'
        OR EXISTS { MATCH (sc:Chunk)-[:FROM_DOCUMENT]->(sd:Document) WHERE sc.id = r.chunkId AND sd.corpus IN $scope }
        OR EXISTS { MATCH (sd:Document) WHERE sd.id = r.documentId AND sd.corpus IN $scope })
  RETURN collect({source: e.id, target: x.id, type: type(r)}) AS relations
}
WITH docs + chunks + entities + authors AS nodes, fromDoc + mentions + authored + relations AS edges
RETURN [x IN nodes | {id: x.id, label: head([l IN labels(x) WHERE l <> '__Entity__'] + ['Node']),
                      name: coalesce(x.name, x.title, x.id)}] AS nodes, edges
