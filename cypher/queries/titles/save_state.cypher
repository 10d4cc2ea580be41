// After a run: the rules it linked by and what the next run needs ($state: minLength, maxRuns,
// chunks), and the documents it linked stamped with the title they were linked under
// (`titleLinked`), so that the next run knows which titles are new.
// params: $state, $stamps
// returns: stamped
MERGE (s:__LinkState {id: 'titles'})
SET s += $state, s.at = datetime()
WITH s
CALL (s) {
  UNWIND $stamps AS row
  MATCH (d:Document {id: row.docId})
  SET d.titleLinked = row.title
  RETURN count(d) AS stamped
}
RETURN stamped
