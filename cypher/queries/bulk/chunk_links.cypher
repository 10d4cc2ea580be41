// What linking wrote for the given chunks: their phrase and term pairs (with the spelling the
// chunk writes) and the words their clauses start with, each list sorted.
// params: $ids
// returns: id, phrases, terms, leads
UNWIND $ids AS id
MATCH (c:Chunk {id: id})
RETURN id,
       COLLECT { MATCH (c)-[r:HAS_PHRASE]->(t) RETURN [t.id, r.surface] AS pair ORDER BY pair } AS phrases,
       COLLECT { MATCH (c)-[r:HAS_TERM]->(t) RETURN [t.id, r.surface] AS pair ORDER BY pair } AS terms,
       COLLECT { MATCH (c)-[:LEADS]->(w) RETURN w.id AS word ORDER BY word } AS leads
