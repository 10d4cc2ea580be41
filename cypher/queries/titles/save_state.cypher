// After a run: the rules it linked by, and the documents it linked stamped with their topic
// (`titleTopic`), so that the next run knows which titles are new.
// params: $minLength, $stamps
// returns: stamped
MERGE (s:__LinkState {id: 'titles'})
SET s.minLength = $minLength, s.at = datetime()
WITH s
CALL (s) {
  UNWIND $stamps AS row
  MATCH (d:Document {id: row.docId})
  SET d.titleTopic = row.entityId
  RETURN count(d) AS stamped
}
RETURN stamped
