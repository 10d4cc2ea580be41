// The communities of the chunks `$ids`, at every level (how a topic answer groups its documents).
// params: $ids
// returns: chunkId, id, level, title, phrases, size, chunks
UNWIND $ids AS chunkId
MATCH (:Chunk {id: chunkId})-[:IN_COMMUNITY]->(m:Community)
RETURN chunkId, m.id AS id, m.level AS level, m.title AS title, coalesce(m.phrases, []) AS phrases,
       m.size AS size, m.chunks AS chunks
