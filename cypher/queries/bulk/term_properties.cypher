// The given terms and words as stored: labels and properties (by id, terms before words).
// params: $terms, $words
// returns: id, labels, properties
CALL () {
  UNWIND $terms AS id
  MATCH (t:Term {id: id})
  RETURN 'term:' + id AS id, labels(t) AS labels, properties(t) AS properties
  UNION ALL
  UNWIND $words AS id
  MATCH (w:Word {id: id})
  RETURN 'word:' + id AS id, labels(w) AS labels, properties(w) AS properties
}
RETURN id, labels, properties
