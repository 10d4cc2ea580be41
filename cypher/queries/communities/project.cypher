// The graph communities are found in, projected into the GDS catalog as $graphName (undirected
// relationships of type LINK with a `weight`): every chunk (labelled Embedded, with its
// `embedding`, when it has one, for KNN), joined to the rare phrases it shares (weight
// 1/sqrt(chunks sharing the phrase), phrases shared by 2..$maxPhraseChunks chunks), to the
// entities it mentions (1/sqrt(chunks mentioning the entity)), to its document
// (1/sqrt(chunks of the document)) and to the next chunk (1); entities that chunks mention,
// joined by their relations (1; not CO_OCCURS, which counts the chunks that mention both: those
// chunks already join them, and counted twice the entities form communities of their own, apart
// from their chunks). Chunks come first, so a node's labels and embedding are those
// of its first row. Phrases and documents only join; they are not community members.
// params: $graphName, $maxPhraseChunks
// returns: graph (the map gds.graph.project returns: graphName, nodeCount, relationshipCount, ...)
CALL () {
  MATCH (c:Chunk)
  RETURN c AS source, null AS target, 0.0 AS weight
  UNION ALL
  MATCH (c:Chunk)-[:HAS_PHRASE]->(p:Phrase)
  WHERE 2 <= p.chunks <= $maxPhraseChunks
  RETURN c AS source, p AS target, 1.0 / sqrt(p.chunks) AS weight
  UNION ALL
  MATCH (c:Chunk)-[:MENTIONS]->(e:__Entity__)
  RETURN c AS source, e AS target, 1.0 / sqrt(COUNT { (e)<-[:MENTIONS]-(:Chunk) }) AS weight
  UNION ALL
  MATCH (c:Chunk)-[:FROM_DOCUMENT]->(d:Document)
  RETURN c AS source, d AS target, 1.0 / sqrt(COUNT { (d)<-[:FROM_DOCUMENT]-(:Chunk) }) AS weight
  UNION ALL
  MATCH (a:Chunk)-[:NEXT_CHUNK]->(b:Chunk)
  RETURN a AS source, b AS target, 1.0 AS weight
  UNION ALL
  MATCH (a:__Entity__)-[r]->(b:__Entity__)
  WHERE a <> b AND NOT r:CO_OCCURS AND EXISTS { (:Chunk)-[:MENTIONS]->(a) } AND EXISTS { (:Chunk)-[:MENTIONS]->(b) }
  RETURN a AS source, b AS target, 1.0 AS weight
}
WITH source, target, weight,
     CASE WHEN source:Chunk AND source.embedding IS NOT NULL THEN ['Chunk', 'Embedded']
          WHEN source:Chunk THEN ['Chunk'] WHEN source:Phrase THEN ['Phrase']
          WHEN source:Document THEN ['Document'] ELSE ['Entity'] END AS sourceLabels,
     CASE WHEN target IS NULL THEN [] WHEN target:Chunk AND target.embedding IS NOT NULL THEN ['Chunk', 'Embedded']
          WHEN target:Chunk THEN ['Chunk'] WHEN target:Phrase THEN ['Phrase']
          WHEN target:Document THEN ['Document'] ELSE ['Entity'] END AS targetLabels
RETURN gds.graph.project($graphName, source, target, {
  sourceNodeLabels: sourceLabels,
  targetNodeLabels: targetLabels,
  sourceNodeProperties: CASE WHEN source:Chunk AND source.embedding IS NOT NULL
                             THEN {embedding: source.embedding} ELSE {} END,
  targetNodeProperties: CASE WHEN target:Chunk AND target.embedding IS NOT NULL
                             THEN {embedding: target.embedding} ELSE {} END,
  relationshipType: 'LINK',
  relationshipProperties: {weight: weight}
}, {undirectedRelationshipTypes: ['LINK']}) AS graph
