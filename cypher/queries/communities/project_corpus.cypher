// communities/project.cypher for the chunks of one corpus (`communities build --by-corpus` runs it
// once per corpus): the same nodes, links and weights, but only chunks whose document is in
// $corpus ('' for documents of no corpus), and only what those chunks reach: their phrases,
// entities and documents, and the relations between entities they mention. A place two corpora
// name is projected in each, so no community joins two corpora.
// params: $graphName, $maxPhraseChunks, $corpus
// returns: graph (the map gds.graph.project returns: graphName, nodeCount, relationshipCount, ...)
CALL () {
  MATCH (c:Chunk)-[:FROM_DOCUMENT]->(d:Document)
  WHERE coalesce(d.corpus, '') = $corpus
  RETURN c AS source, null AS target, 0.0 AS weight
  UNION ALL
  MATCH (p:Phrase)<-[:HAS_PHRASE]-(c:Chunk)-[:FROM_DOCUMENT]->(d:Document)
  WHERE 2 <= p.chunks <= $maxPhraseChunks AND coalesce(d.corpus, '') = $corpus
  RETURN c AS source, p AS target, 1.0 / sqrt(p.chunks) AS weight
  UNION ALL
  MATCH (e:__Entity__)<-[:MENTIONS]-(c:Chunk)-[:FROM_DOCUMENT]->(d:Document)
  WHERE coalesce(d.corpus, '') = $corpus
  RETURN c AS source, e AS target, 1.0 / sqrt(COUNT { (e)<-[:MENTIONS]-(:Chunk) }) AS weight
  UNION ALL
  MATCH (c:Chunk)-[:FROM_DOCUMENT]->(d:Document)
  WHERE coalesce(d.corpus, '') = $corpus
  RETURN c AS source, d AS target, 1.0 / sqrt(COUNT { (d)<-[:FROM_DOCUMENT]-(:Chunk) }) AS weight
  UNION ALL
  MATCH (b:Chunk)<-[:NEXT_CHUNK]-(a:Chunk)-[:FROM_DOCUMENT]->(d:Document)
  WHERE coalesce(d.corpus, '') = $corpus
  RETURN a AS source, b AS target, 1.0 AS weight
  UNION ALL
  MATCH (a:__Entity__)-[r]->(b:__Entity__)
  WHERE a <> b AND NOT r:CO_OCCURS
    AND EXISTS { (a)<-[:MENTIONS]-(:Chunk)-[:FROM_DOCUMENT]->(d:Document) WHERE coalesce(d.corpus, '') = $corpus }
    AND EXISTS { (b)<-[:MENTIONS]-(:Chunk)-[:FROM_DOCUMENT]->(d:Document) WHERE coalesce(d.corpus, '') = $corpus }
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
