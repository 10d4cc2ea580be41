// A full run's new chunk–term pairs that are no links (a term of one chunk, or of too many),
// a chunk at a time, with the spelling the chunk writes.
// params: $rows (c: chunk id, t: [[term id, surface]])
// returns: created
UNWIND $rows AS row
MATCH (c:Chunk {id: row.c})
UNWIND row.t AS pair
MATCH (t:Term {id: pair[0]})
CREATE (c)-[:HAS_TERM {surface: pair[1]}]->(t)
RETURN count(*) AS created
