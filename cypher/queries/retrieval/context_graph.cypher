// The entities mentioned by the evidence chunks and the relationships among them, for the
// NODES / RELATIONSHIPS lines of the LLM context and the Mermaid view. An entity below
// $minConfidence (its numeric confidence; none, or a word such as infobox typing's
// 'High', counts as 1.0) is not named unless the question asks for it: its
// id is one of $askedIds or its type one of $askedTypes.
// params: $chunkIds, $limit, $minConfidence, $askedIds, $askedTypes, $scope
// $scope: the corpora of the key asking (null: every corpus): a relation is named only when it was read from one
// of their chunks or documents, an entity's description only when its own document is one of theirs.
// returns: nodes, relationships, mentions
UNWIND $chunkIds AS chunkId
MATCH (c:Chunk {id: chunkId})-[:MENTIONS]->(e:__Entity__)
WHERE coalesce(toFloatOrNull(e.confidence), 1.0) >= $minConfidence OR e.id IN $askedIds
   OR e.type IN $askedTypes OR any(l IN labels(e) WHERE l IN $askedTypes)
WITH collect(DISTINCT e)[0..$limit] AS entities, collect(DISTINCT {chunk: chunkId, entity: e.id}) AS mentions
CALL (entities) {
  UNWIND entities AS e
  MATCH (e)-[r]->(x:__Entity__)
  WHERE x IN entities AND NOT type(r) IN ['MENTIONS', 'CO_OCCURS']
    AND ($scope IS NULL OR type(r) = 'INSTANCE_OF'
        OR EXISTS { MATCH (sc:Chunk)-[:FROM_DOCUMENT]->(sd:Document) WHERE sc.id = r.chunkId AND sd.corpus IN $scope }
        OR EXISTS { MATCH (sd:Document) WHERE sd.id = r.documentId AND sd.corpus IN $scope })
  RETURN collect({start: e.id, type: type(r), end: x.id, description: r.description}) AS relationships
}
RETURN [e IN entities | {id: e.id, name: coalesce(e.name, e.title), type: coalesce(e.type, head([l IN labels(e) WHERE l <> '__Entity__'])),
                         documentId: e.documentId,
                         description: CASE WHEN $scope IS NULL OR EXISTS { MATCH (sd:Document) WHERE sd.id = e.documentId AND sd.corpus IN $scope }
                                      THEN e.description END}] AS nodes,
       relationships, mentions
