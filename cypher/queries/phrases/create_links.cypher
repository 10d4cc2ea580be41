// Chunk -[:HAS_PHRASE]-> phrase, one edge per pair.
// params: $rows
// returns: created
UNWIND $rows AS row
MATCH (c:Chunk {id: row.chunkId})
MATCH (p:Phrase {id: row.phraseId})
MERGE (c)-[r:HAS_PHRASE]->(p)
RETURN count(r) AS created
