// The chunk–phrase links in the graph now, so a run writes only what changed.
// params: none
// returns: chunkId, phraseId
MATCH (c:Chunk)-[:HAS_PHRASE]->(p:Phrase)
RETURN c.id AS chunkId, p.id AS phraseId
