// The relations the question's entity actually has, both ways, with the labels at their far
// ends and how many edges each has (up to $sample per type): what a lookup of that entity can
// answer. Each type is expanded by name, so the chunks that mention a much-mentioned entity
// (MENTIONS, not a relation a question asks about) are never walked.
// params: $ids, $types (the catalog's relation types), $sample, $scope
// $scope: the corpora of the key asking (null: every corpus): only entities they name, and relations read
// from their chunks or documents.
// returns: type, outgoing, far, edges
UNWIND $ids AS xid
MATCH (x:__Entity__ {id: xid})
WHERE ($scope IS NULL
   OR EXISTS { (x)<-[:MENTIONS]-(:Chunk)-[:FROM_DOCUMENT]->(sd:Document) WHERE sd.corpus IN $scope }
   OR EXISTS { (x)-[:FROM_CHUNK]->(:Chunk)-[:FROM_DOCUMENT]->(sd:Document) WHERE sd.corpus IN $scope }
   OR EXISTS { (x)<-[:DESCRIBES]-(sd:Document) WHERE sd.corpus IN $scope }
   OR EXISTS { MATCH (sd:Document) WHERE sd.id = x.documentId AND sd.corpus IN $scope }
   OR EXISTS { (x)<-[:INSTANCE_OF]-(:__Entity__)<-[:MENTIONS]-(:Chunk)-[:FROM_DOCUMENT]->(sd:Document) WHERE sd.corpus IN $scope })
UNWIND $types AS type
CALL (x, type) {
  MATCH (x)-[r:$(type)]-(y:__Entity__)
  WHERE y <> x AND ($scope IS NULL OR type(r) = 'INSTANCE_OF'
         OR EXISTS { MATCH (sc:Chunk)-[:FROM_DOCUMENT]->(sd:Document) WHERE sc.id = r.chunkId AND sd.corpus IN $scope }
         OR EXISTS { MATCH (sd:Document) WHERE sd.id = r.documentId AND sd.corpus IN $scope })
  WITH r, y LIMIT $sample
  RETURN startNode(r) = x AS outgoing, [l IN labels(y) WHERE l <> '__Entity__'] AS far, count(*) AS edges
}
RETURN type, outgoing, far, sum(edges) AS edges
ORDER BY type, outgoing
