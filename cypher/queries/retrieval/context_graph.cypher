// The entities mentioned by the evidence chunks and the relationships among them, for the
// NODES / RELATIONSHIPS lines of the LLM context and the Mermaid view. An entity below
// $minConfidence (its numeric confidence; none, or a word such as infobox typing's
// 'High', counts as 1.0) is not named unless the question asks for it: its
// id is one of $askedIds or its type one of $askedTypes.
// params: $chunkIds, $limit, $minConfidence, $askedIds, $askedTypes
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
  RETURN collect({start: e.id, type: type(r), end: x.id, description: r.description}) AS relationships
}
RETURN [e IN entities | {id: e.id, name: coalesce(e.name, e.title), type: coalesce(e.type, head([l IN labels(e) WHERE l <> '__Entity__'])),
                         documentId: e.documentId,
                         description: e.description}] AS nodes,
       relationships, mentions
