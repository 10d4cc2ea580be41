// A full run's new terms that link nothing: in one chunk, or in too many (none of these ids is
// in the graph).
// params: $rows (id, name, chunks, nameChunk)
// returns: terms
UNWIND $rows AS row
CREATE (t:Term {id: row.id, name: row.name, chunks: row.chunks, nameChunk: row.nameChunk})
RETURN count(t) AS terms
