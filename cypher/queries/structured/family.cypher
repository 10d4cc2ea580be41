// An entity and the entities tied to it by INSTANCE_OF (a story's entity and its canonical
// one, both ways): one thing under several ids.
// params: $ids, $scope
// $scope: the corpora of the key asking (null: every corpus): only entities they name, and relations read
// from their chunks or documents.
// returns: id
UNWIND $ids AS xid
MATCH (x:__Entity__ {id: xid})
WHERE ($scope IS NULL
   OR EXISTS { (x)<-[:MENTIONS]-(:Chunk)-[:FROM_DOCUMENT]->(sd:Document) WHERE sd.corpus IN $scope }
   OR EXISTS { (x)-[:FROM_CHUNK]->(:Chunk)-[:FROM_DOCUMENT]->(sd:Document) WHERE sd.corpus IN $scope }
   OR EXISTS { (x)<-[:DESCRIBES]-(sd:Document) WHERE sd.corpus IN $scope }
   OR EXISTS { MATCH (sd:Document) WHERE sd.id = x.documentId AND sd.corpus IN $scope }
   OR EXISTS { (x)<-[:INSTANCE_OF]-(:__Entity__)<-[:MENTIONS]-(:Chunk)-[:FROM_DOCUMENT]->(sd:Document) WHERE sd.corpus IN $scope })
OPTIONAL MATCH (x)-[:INSTANCE_OF]-(o:__Entity__)
WITH collect(DISTINCT x.id) + collect(DISTINCT o.id) AS ids
UNWIND ids AS id
RETURN DISTINCT id
