// A full run's new chunk–phrase links, a chunk at a time, with the spelling the chunk writes.
// Counts are not touched: a full run writes them on the terms.
// params: $rows (c: chunk id, t: [[term id, surface]])
// returns: created
UNWIND $rows AS row
MATCH (c:Chunk {id: row.c})
UNWIND row.t AS pair
MATCH (t:Term {id: pair[0]})
CREATE (c)-[:HAS_PHRASE {surface: pair[1]}]->(t)
RETURN count(*) AS created
