// Remove this linker's MENTIONS from scanned chunks that the current run no longer makes
// (e.g. after a name was stop-listed); other linkers' edges are never touched.
// params: $chunks, $linker
// returns: removed
UNWIND $chunks AS ch
MATCH (c:Chunk {id: ch.id})-[m:MENTIONS]->(e:__Entity__)
WHERE m.linker = $linker AND NOT e.id IN ch.keep
DELETE m
RETURN count(*) AS removed
