// Communities for `communities show`: a level (null: all), a corpus (null: all), the largest first.
// params: $level, $corpus, $limit, $scope
// $scope: the corpora of the key asking (null: every corpus): a community with members of any other corpus
// is not read.
// returns: id, level, size, chunks, entities, documents, corpora, title, phrases, parent
MATCH (c:Community)
WHERE ($level IS NULL OR c.level = $level) AND ($corpus IS NULL OR $corpus IN c.corpora)
  AND ($scope IS NULL OR (size(coalesce(c.corpora, [])) > 0 AND all(x IN c.corpora WHERE x IN $scope)))
OPTIONAL MATCH (c)-[:PARENT]->(p:Community)
WHERE ($scope IS NULL OR (size(coalesce(p.corpora, [])) > 0 AND all(x IN p.corpora WHERE x IN $scope)))
RETURN c.id AS id, c.level AS level, c.size AS size, c.chunks AS chunks, c.entities AS entities,
       c.documents AS documents, c.corpora AS corpora, c.title AS title, c.phrases AS phrases, p.id AS parent
ORDER BY c.level, c.size DESC, c.id
LIMIT $limit
