// An entity and its INSTANCE_OF family: the entities that are instances of it (a story's own
// entity of a canonical one) and the one it is an instance of, the entity first, then by id.
// params: $id, $scope
// $scope: the corpora of the key asking (null: every corpus); an entity no chunk or document of
// them names is not found.
// returns: ids
MATCH (e:__Entity__ {id: $id})
WHERE ($scope IS NULL
   OR EXISTS { (e)<-[:MENTIONS]-(:Chunk)-[:FROM_DOCUMENT]->(sd:Document) WHERE sd.corpus IN $scope }
   OR EXISTS { (e)-[:FROM_CHUNK]->(:Chunk)-[:FROM_DOCUMENT]->(sd:Document) WHERE sd.corpus IN $scope }
   OR EXISTS { (e)<-[:DESCRIBES]-(sd:Document) WHERE sd.corpus IN $scope }
   OR EXISTS { MATCH (sd:Document) WHERE sd.id = e.documentId AND sd.corpus IN $scope }
   OR EXISTS { (e)<-[:INSTANCE_OF]-(:__Entity__)<-[:MENTIONS]-(:Chunk)-[:FROM_DOCUMENT]->(sd:Document) WHERE sd.corpus IN $scope })
OPTIONAL MATCH (e)-[:INSTANCE_OF]-(x:__Entity__)
WHERE ($scope IS NULL
   OR EXISTS { (x)<-[:MENTIONS]-(:Chunk)-[:FROM_DOCUMENT]->(sd:Document) WHERE sd.corpus IN $scope }
   OR EXISTS { (x)-[:FROM_CHUNK]->(:Chunk)-[:FROM_DOCUMENT]->(sd:Document) WHERE sd.corpus IN $scope }
   OR EXISTS { (x)<-[:DESCRIBES]-(sd:Document) WHERE sd.corpus IN $scope }
   OR EXISTS { MATCH (sd:Document) WHERE sd.id = x.documentId AND sd.corpus IN $scope }
   OR EXISTS { (x)<-[:INSTANCE_OF]-(:__Entity__)<-[:MENTIONS]-(:Chunk)-[:FROM_DOCUMENT]->(sd:Document) WHERE sd.corpus IN $scope })
WITH e, x ORDER BY x.id
WITH e.id AS id, collect(DISTINCT x.id) AS family
RETURN [id] + [i IN family WHERE i <> id] AS ids
