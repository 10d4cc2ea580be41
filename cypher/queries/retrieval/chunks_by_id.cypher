// Chunks with their documents, by id (evidence for path answers); with $about (entity ids, or
// null) only those that MENTION one of them.
// params: $ids, $about, $scope
// $scope: the corpora of the key asking (null: every corpus): chunks of others are not read.
// returns: chunkId, documentId, title, uri, text
UNWIND $ids AS id
MATCH (c:Chunk {id: id})-[:FROM_DOCUMENT]->(d:Document)
WHERE ($about IS NULL OR EXISTS { (c)-[:MENTIONS]->(named:__Entity__) WHERE named.id IN $about })
  AND ($scope IS NULL OR d.corpus IN $scope)
RETURN c.id AS chunkId, d.id AS documentId, d.title AS title, d.uri AS uri, c.text AS text
