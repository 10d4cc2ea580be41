// The title linker's edges of chunks $chunkIds: its own (source 'title') and those the entity
// linker has made its own since (their title rule kept as titleRule / titleMatched).
// params: $chunkIds
// returns: chunkId, entityId, rule, matched
UNWIND $chunkIds AS id
MATCH (c:Chunk {id: id})-[m:MENTIONS]->(e:__Entity__)
WHERE m.source = 'title' OR m.titleRule IS NOT NULL
RETURN c.id AS chunkId, e.id AS entityId, coalesce(m.titleRule, m.rule) AS rule,
       coalesce(m.titleMatched, m.matched) AS matched
