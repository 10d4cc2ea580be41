// A linker's MENTIONS edges of chunks $chunkIds as parallel lists in one row: chunk id, entity
// id and the edge's properties but its first-made time `at` (what a run compares its edges with).
// params: $chunkIds, $linker
// returns: chunkIds, targetIds, props
UNWIND $chunkIds AS id
MATCH (c:Chunk {id: id})-[m:MENTIONS]->(e:__Entity__)
WHERE m.linker = $linker
RETURN collect(c.id) AS chunkIds, collect(e.id) AS targetIds,
       collect(m {.*, at: null, titleRule: null, titleMatched: null}) AS props
