// CO_OCCURS edges whose two entities no longer share a chunk (after links were removed).
// params: none
// returns: removed
MATCH (a:__Entity__)-[r:CO_OCCURS {source: 'chunks'}]->(b:__Entity__)
WHERE NOT EXISTS { MATCH (c:Chunk)-[:MENTIONS]->(a) WHERE (c)-[:MENTIONS]->(b) }
DELETE r
RETURN count(*) AS removed
