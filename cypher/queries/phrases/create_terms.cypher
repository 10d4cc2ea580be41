// A full run's new terms (none of these ids is in the graph): name, chunk count, and the
// :Phrase label when 2..max chunks share it (`labels`).
// params: $rows (id, name, chunks, nameChunk, labels)
// returns: terms
UNWIND $rows AS row
CREATE (t:Term {id: row.id, name: row.name, chunks: row.chunks, nameChunk: row.nameChunk})
SET t:$(row.labels)
RETURN count(t) AS terms
