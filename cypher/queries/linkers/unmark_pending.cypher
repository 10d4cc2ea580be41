// Chunks $chunkIds seen by the entity linker: no longer :PendingEntities.
// params: $chunkIds
// returns: done
UNWIND $chunkIds AS id
MATCH (c:Chunk {id: id})
WHERE c:PendingEntities
REMOVE c:PendingEntities
RETURN count(c) AS done
