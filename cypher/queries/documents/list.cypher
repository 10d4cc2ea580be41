// Documents, newest first, with their chunk counts (for GET /documents and `graphrag forget`).
// params: $corpus, $skip, $limit, $scope
// returns: id, title, uri, corpus, kind, loader, topics, chunks, updatedAt
MATCH (d:Document)
WHERE ($corpus IS NULL OR d.corpus = $corpus) AND ($scope IS NULL OR d.corpus IN $scope)
WITH d ORDER BY coalesce(d.updatedAt, d.createdAt) DESC, d.id SKIP $skip LIMIT $limit
RETURN d.id AS id, d.title AS title, d.uri AS uri, d.corpus AS corpus, d.kind AS kind, d.loader AS loader,
       d.topics AS topics, COUNT { (:Chunk)-[:FROM_DOCUMENT]->(d) } AS chunks, toString(d.updatedAt) AS updatedAt
