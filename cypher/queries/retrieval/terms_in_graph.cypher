// Which of the question's terms some chunk of the graph mentions, in its text or title (the
// full-text index, accent-folded): the abstention's test of a term no passage found mentions.
// params: $terms (a list of {term, query}: each query a Lucene query the caller escaped), $scope
// $scope: the corpora of the key asking (null: every corpus): only their chunks count, so that
// what the abstention says is no sign of what another corpus holds.
// returns: term (one row per term some chunk mentions)
UNWIND $terms AS t
CALL (t) {
  CALL db.index.fulltext.queryNodes('chunk_text', t.query, {limit: CASE WHEN $scope IS NULL THEN 1 ELSE 1000 END})
  YIELD node
  WHERE $scope IS NULL OR EXISTS { (node)-[:FROM_DOCUMENT]->(d:Document) WHERE d.corpus IN $scope }
  RETURN count(node) AS found
}
WITH t, found
WHERE found > 0
RETURN t.term AS term
