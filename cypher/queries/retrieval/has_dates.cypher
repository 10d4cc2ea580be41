// Whether any document in scope has a date (only then does a time expression filter).
// params: $corpus, $scope
// returns: dated
OPTIONAL MATCH (d:Document)
WHERE d.date IS NOT NULL AND ($corpus IS NULL OR d.corpus = $corpus) AND ($scope IS NULL OR d.corpus IN $scope)
WITH d LIMIT 1
RETURN d IS NOT NULL AS dated
