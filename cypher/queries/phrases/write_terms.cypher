// A full run's terms: name (the spelling of the lowest chunk id), chunk count, and the
// :Phrase label when 2..max chunks share it. Pairs are written afterwards (write_links).
// params: $rows (id, name, chunks, nameChunk, phrase)
// returns: terms
UNWIND $rows AS row
MERGE (t:Term {id: row.id})
SET t.name = row.name, t.chunks = row.chunks, t.nameChunk = row.nameChunk
WITH t, row
CALL (t, row) {
  WITH t WHERE row.phrase
  SET t:Phrase
}
CALL (t, row) {
  WITH t WHERE NOT row.phrase
  REMOVE t:Phrase
}
RETURN count(t) AS terms
