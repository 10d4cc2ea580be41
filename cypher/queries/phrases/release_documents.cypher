// Before the chunks of these documents are deleted (a changed document is re-chunked, a
// document is pruned or forgotten): each gives back its count to every term it has and to
// every word it writes in lower case, in the deleting transaction, so `Phrase.chunks` stays
// right. What it touched is left :StaleTerm / :StaleWord for the next phrase run to re-decide.
// params: $ids
// returns: chunks
UNWIND $ids AS id
MATCH (:Document {id: id})<-[:FROM_DOCUMENT]-(c:Chunk)
CALL (c) {
  MATCH (c)-[r:HAS_PHRASE|HAS_TERM]->(t:Term)
  DELETE r
  SET t.chunks = t.chunks - 1, t:StaleTerm,
      t.nameChunk = CASE WHEN t.nameChunk = c.id THEN null ELSE t.nameChunk END
}
CALL (c) {
  UNWIND [w IN split(coalesce(c.lowerWords, ''), ' ') WHERE w <> ''] AS word
  MATCH (w:Word {id: word})
  SET w.lower = w.lower - 1, w:StaleWord
}
CALL (c) {
  MATCH (c)-[r:LEADS]->(w:Word)
  DELETE r
  SET w:StaleWord
}
REMOVE c.lowerWords
RETURN count(c) AS chunks
