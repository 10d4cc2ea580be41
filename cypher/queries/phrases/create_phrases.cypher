// A full run's new terms that 2..max chunks share (none of these ids is in the graph).
// params: $rows (id, name, chunks, nameChunk)
// returns: terms
UNWIND $rows AS row
CREATE (t:Term:Phrase {id: row.id, name: row.name, chunks: row.chunks, nameChunk: row.nameChunk})
RETURN count(t) AS terms
