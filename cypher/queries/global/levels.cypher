// The community levels the graph holds, with how many communities each has (none: no
// `graphrag communities build` has run).
// params: $scope
// $scope: the corpora of the key asking (null: every corpus): a community with members of any other corpus
// is not read.
// returns: level, communities
MATCH (m:Community)
WHERE ($scope IS NULL OR (size(coalesce(m.corpora, [])) > 0 AND all(x IN m.corpora WHERE x IN $scope)))
RETURN m.level AS level, count(*) AS communities
ORDER BY level
