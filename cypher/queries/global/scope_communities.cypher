// Every community with member chunks in the scope, at every level: how many of its member
// chunks and their documents are in the scope (what themes are ranked by).
// params: $corpus, $labels, $exclude, $from, $to, $scope
// $scope: the corpora of the key asking (null: every corpus): a community with members of any other corpus
// is not read.
// returns: id, level, title, phrases, size, chunks, documents, inScopeChunks, inScopeDocuments
MATCH (d:Document)<-[:FROM_DOCUMENT]-(c:Chunk)-[:IN_COMMUNITY]->(m:Community)
WHERE ($corpus IS NULL OR d.corpus = $corpus) AND ($scope IS NULL OR d.corpus IN $scope)
  AND ($labels IS NULL OR any(l IN labels(d) WHERE l IN $labels))
  AND none(l IN labels(d) WHERE l IN $exclude)
  AND ($from IS NULL OR d.date >= $from)
  AND ($to IS NULL OR d.date <= $to)
  AND ($scope IS NULL OR (size(coalesce(m.corpora, [])) > 0 AND all(x IN m.corpora WHERE x IN $scope)))
WITH m, count(DISTINCT c) AS inScopeChunks, count(DISTINCT d) AS inScopeDocuments
RETURN m.id AS id, m.level AS level, m.title AS title, coalesce(m.phrases, []) AS phrases, m.size AS size,
       m.chunks AS chunks, m.documents AS documents, inScopeChunks, inScopeDocuments
ORDER BY level, inScopeChunks DESC, id
