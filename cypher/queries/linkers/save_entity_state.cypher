// After an entity run: its rules and counts, and the entities it linked stamped with what
// they were linked as (`linkedAs`), so that the next run knows which are new or changed.
// params: $rules, $stamps
// returns: stamped
MERGE (s:__LinkState {id: 'entities'})
SET s += $rules, s.at = datetime()
WITH s
CALL (s) {
  UNWIND $stamps AS row
  MATCH (e:__Entity__ {id: row.id})
  SET e.linkedAs = row.linkedAs
  RETURN count(e) AS stamped
}
RETURN stamped
