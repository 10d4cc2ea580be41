// Phrases with their display name and how many chunks share them (`chunks`: a shared
// phrase links two chunks with weight 1 / chunks in graph retrieval).
// params: $rows
// returns: phrases
UNWIND $rows AS row
MERGE (p:Phrase {id: row.id})
SET p.name = row.name, p.chunks = row.chunks
RETURN count(p) AS phrases
