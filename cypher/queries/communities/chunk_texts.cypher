// The stored text of the given chunks (the representative sentences are taken from it).
// params: $ids
// returns: id, text
UNWIND $ids AS id
MATCH (c:Chunk {id: id})
RETURN c.id AS id, c.text AS text
