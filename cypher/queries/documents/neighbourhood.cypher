// A node (entity, document or chunk, by id) and up to $limit neighbours, for drawing: nodes
// {id, label, name} and edges {source, target, type}. Vectors and texts are not returned. A
// neighbouring entity below $minConfidence (a numeric confidence; none, or a word, counts as 1.0) is not drawn; the node
// asked for always is.
// params: $id, $limit, $minConfidence, $scope
// $scope: the corpora of the key asking (null: every corpus): a node none of them holds or names is not found,
// and no neighbour, or relation between entities, of another corpus is drawn.
// returns: nodes, edges
CALL () {
  MATCH (n:__Entity__ {id: $id}) RETURN n
  UNION
  MATCH (n:Document {id: $id}) RETURN n
  UNION
  MATCH (n:Chunk {id: $id}) RETURN n
}
WITH n LIMIT 1
WHERE ($scope IS NULL
   OR (n:Document AND n.corpus IN $scope)
   OR (n:Chunk AND EXISTS { (n)-[:FROM_DOCUMENT]->(sd:Document) WHERE sd.corpus IN $scope })
   OR (n:Phrase AND EXISTS { (n)<-[:HAS_PHRASE]-(:Chunk)-[:FROM_DOCUMENT]->(sd:Document) WHERE sd.corpus IN $scope })
   OR (n:__Entity__ AND ($scope IS NULL
     OR EXISTS { (n)<-[:MENTIONS]-(:Chunk)-[:FROM_DOCUMENT]->(sd:Document) WHERE sd.corpus IN $scope }
     OR EXISTS { (n)-[:FROM_CHUNK]->(:Chunk)-[:FROM_DOCUMENT]->(sd:Document) WHERE sd.corpus IN $scope }
     OR EXISTS { (n)<-[:DESCRIBES]-(sd:Document) WHERE sd.corpus IN $scope }
     OR EXISTS { MATCH (sd:Document) WHERE sd.id = n.documentId AND sd.corpus IN $scope }
     OR EXISTS { (n)<-[:INSTANCE_OF]-(:__Entity__)<-[:MENTIONS]-(:Chunk)-[:FROM_DOCUMENT]->(sd:Document) WHERE sd.corpus IN $scope })))
CALL (n) {
  MATCH (n)-[r]-(m)
  WHERE m.id IS NOT NULL AND (m:__Entity__ OR m:Document OR m:Chunk OR m:Phrase)
    AND (NOT m:__Entity__ OR coalesce(toFloatOrNull(m.confidence), 1.0) >= $minConfidence)
    AND ($scope IS NULL
        OR (m:Document AND m.corpus IN $scope)
        OR (m:Chunk AND EXISTS { (m)-[:FROM_DOCUMENT]->(sd:Document) WHERE sd.corpus IN $scope })
        OR (m:Phrase AND EXISTS { (m)<-[:HAS_PHRASE]-(:Chunk)-[:FROM_DOCUMENT]->(sd:Document) WHERE sd.corpus IN $scope })
        OR (m:__Entity__ AND ($scope IS NULL
          OR EXISTS { (m)<-[:MENTIONS]-(:Chunk)-[:FROM_DOCUMENT]->(sd:Document) WHERE sd.corpus IN $scope }
          OR EXISTS { (m)-[:FROM_CHUNK]->(:Chunk)-[:FROM_DOCUMENT]->(sd:Document) WHERE sd.corpus IN $scope }
          OR EXISTS { (m)<-[:DESCRIBES]-(sd:Document) WHERE sd.corpus IN $scope }
          OR EXISTS { MATCH (sd:Document) WHERE sd.id = m.documentId AND sd.corpus IN $scope }
          OR EXISTS { (m)<-[:INSTANCE_OF]-(:__Entity__)<-[:MENTIONS]-(:Chunk)-[:FROM_DOCUMENT]->(sd:Document) WHERE sd.corpus IN $scope })))
    AND (NOT (n:__Entity__ AND m:__Entity__) OR ($scope IS NULL OR type(r) = 'INSTANCE_OF'
        OR EXISTS { MATCH (sc:Chunk)-[:FROM_DOCUMENT]->(sd:Document) WHERE sc.id = r.chunkId AND sd.corpus IN $scope }
        OR EXISTS { MATCH (sd:Document) WHERE sd.id = r.documentId AND sd.corpus IN $scope }))
  WITH r, m ORDER BY type(r), m.id LIMIT $limit
  RETURN collect(DISTINCT m) AS neighbours, collect(r) AS rels
}
WITH [n] + neighbours AS nodes, rels
RETURN [x IN nodes | {id: x.id, label: head([l IN labels(x) WHERE l <> '__Entity__'] + ['Node']),
                      name: coalesce(x.name, x.title, x.id)}] AS nodes,
       [r IN rels | {source: startNode(r).id, target: endNode(r).id, type: type(r)}] AS edges
