// After a full run: no chunk is pending and no term or word is stale (it wrote them all).
// Batched by the caller until it returns 0.
// params: $limit
// returns: cleared
CALL () {
  MATCH (c:PendingPhrases)
  WITH c LIMIT $limit
  REMOVE c:PendingPhrases
  RETURN count(c) AS chunks
}
CALL () {
  MATCH (t:StaleTerm)
  WITH t LIMIT $limit
  REMOVE t:StaleTerm
  RETURN count(t) AS terms
}
CALL () {
  MATCH (w:StaleWord)
  WITH w LIMIT $limit
  REMOVE w:StaleWord
  RETURN count(w) AS words
}
RETURN chunks + terms + words AS cleared
