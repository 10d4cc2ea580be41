// A linker's MENTIONS edges as parallel lists in one row: chunk id, entity id and the
// edge's properties but its first-made time `at` (what a new run compares its edges with).
// params: $linker
// returns: chunkIds, targetIds, props
MATCH (c:Chunk)-[m:MENTIONS]->(e:__Entity__)
WHERE m.linker = $linker
RETURN collect(c.id) AS chunkIds, collect(e.id) AS targetIds, collect(m {.*, at: null}) AS props
