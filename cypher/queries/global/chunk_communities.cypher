// The communities of the chunks `$ids`, at every level (how a topic answer groups its documents).
// params: $ids, $scope
// $scope: the corpora of the key asking (null: every corpus): a community with members of any other corpus
// is not read.
// returns: chunkId, id, level, title, phrases, size, chunks
UNWIND $ids AS chunkId
MATCH (:Chunk {id: chunkId})-[:IN_COMMUNITY]->(m:Community)
WHERE ($scope IS NULL OR (size(coalesce(m.corpora, [])) > 0 AND all(x IN m.corpora WHERE x IN $scope)))
RETURN chunkId, m.id AS id, m.level AS level, m.title AS title, coalesce(m.phrases, []) AS phrases,
       m.size AS size, m.chunks AS chunks
