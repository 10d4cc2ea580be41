// A full run's vocabulary counts: chunks writing each word in lower case.
// params: $rows (id, lower)
// returns: words
UNWIND $rows AS row
MERGE (w:Word {id: row.id})
SET w.lower = row.lower, w.known = row.lower > 0
RETURN count(w) AS words
