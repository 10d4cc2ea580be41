// How many documents the scope holds (the "of N" of a count over documents).
// params: $corpus, $labels, $exclude, $from, $to, $scope
// returns: total
MATCH (d:Document)
WHERE ($corpus IS NULL OR d.corpus = $corpus) AND ($scope IS NULL OR d.corpus IN $scope)
  AND ($labels IS NULL OR any(l IN labels(d) WHERE l IN $labels))
  AND none(l IN labels(d) WHERE l IN $exclude)
  AND ($from IS NULL OR d.date >= $from)
  AND ($to IS NULL OR d.date <= $to)
RETURN count(d) AS total
