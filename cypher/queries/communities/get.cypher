// One community's report for `communities report <id>`, with its parent and children.
// params: $id, $scope
// $scope: the corpora of the key asking (null: every corpus): a community with members of any other corpus
// is not read.
// returns: community (its properties without the embedding), parent, children
MATCH (c:Community {id: $id})
WHERE ($scope IS NULL OR (size(coalesce(c.corpora, [])) > 0 AND all(x IN c.corpora WHERE x IN $scope)))
OPTIONAL MATCH (c)-[:PARENT]->(p:Community)
WHERE ($scope IS NULL OR (size(coalesce(p.corpora, [])) > 0 AND all(x IN p.corpora WHERE x IN $scope)))
RETURN c {.*, embedding: null} AS community, p.id AS parent,
       COLLECT { MATCH (child:Community)-[:PARENT]->(c) WHERE ($scope IS NULL OR (size(coalesce(child.corpora, [])) > 0 AND all(x IN child.corpora WHERE x IN $scope))) RETURN child.id ORDER BY child.size DESC } AS children
