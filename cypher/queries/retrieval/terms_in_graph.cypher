// Which of the question's terms some chunk of the graph mentions, in its text or title (the
// full-text index, accent-folded): the abstention's test of a term no passage found mentions.
// params: $terms (a list of {term, query}: each query a Lucene query the caller escaped)
// returns: term (one row per term some chunk mentions)
UNWIND $terms AS t
CALL (t) {
  CALL db.index.fulltext.queryNodes('chunk_text', t.query, {limit: 1}) YIELD node
  RETURN count(node) AS found
}
WITH t, found
WHERE found > 0
RETURN t.term AS term
