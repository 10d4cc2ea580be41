// Words whose count a run or a deletion changed: one that entered or left the vocabulary
// re-decides the sentence-start rule of every chunk whose clause starts with it (they go
// back to :PendingPhrases); a word no chunk writes or starts with goes.
// params: $limit
// returns: words, requeued
MATCH (w:StaleWord)
WITH w LIMIT $limit
CALL (w) {
  WITH w WHERE (w.lower > 0) <> w.known
  MATCH (c:Chunk)-[:LEADS]->(w)
  SET c:PendingPhrases
  RETURN count(c) AS requeued
}
SET w.known = w.lower > 0
REMOVE w:StaleWord
WITH w, requeued
CALL (w) {
  WITH w WHERE w.lower <= 0 AND NOT EXISTS { (w)<-[:LEADS]-(:Chunk) }
  DETACH DELETE w
}
RETURN count(*) AS words, sum(requeued) AS requeued
