// Remove chunk–phrase links the current run no longer makes.
// params: $rows
// returns: removed
UNWIND $rows AS row
MATCH (:Chunk {id: row.chunkId})-[r:HAS_PHRASE]->(:Phrase {id: row.phraseId})
DELETE r
RETURN count(*) AS removed
