// Chunks a phrase run could not write (Neo4j refused one of their words or terms): they leave
// :PendingPhrases with no words counted (lowerWords '') and the reason in `phraseError`, so
// the runs after this one go on without them; a full run reads them again.
// params: $rows (id, error)
// returns: chunks
UNWIND $rows AS row
MATCH (c:Chunk {id: row.id})
SET c.lowerWords = coalesce(c.lowerWords, ''), c.phraseError = row.error
REMOVE c:PendingPhrases
RETURN count(c) AS chunks
