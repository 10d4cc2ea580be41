// The places the place linker decided for these chunks (its MENTIONS, not the recogniser's):
// a name several gazetteer places share is linked to the one decided here, if any.
// params: $chunkIds
// returns: chunkId, placeIds
UNWIND $chunkIds AS chunkId
MATCH (c:Chunk {id: chunkId})-[m:MENTIONS]->(p:Place)
WHERE NOT coalesce(m.rule, '') STARTS WITH 'ner'
RETURN chunkId, collect(DISTINCT p.id) AS placeIds
