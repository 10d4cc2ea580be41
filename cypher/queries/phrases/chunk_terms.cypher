// The terms some chunks have now (a full run compares them with what it found).
// params: $ids
// returns: chunkId, terms ([id, surface, link: whether HAS_PHRASE])
UNWIND $ids AS id
MATCH (c:Chunk {id: id})
RETURN c.id AS chunkId,
       [(c)-[r:HAS_PHRASE|HAS_TERM]->(t:Term) | [t.id, r.surface, type(r) = 'HAS_PHRASE']] AS terms
