// A full run's new vocabulary words (none of these ids is in the graph).
// params: $rows (id, lower)
// returns: words
UNWIND $rows AS row
CREATE (w:Word {id: row.id, lower: row.lower, known: row.lower > 0})
RETURN count(w) AS words
