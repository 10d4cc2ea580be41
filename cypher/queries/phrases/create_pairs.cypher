// A full run's new chunk–term pairs: HAS_PHRASE to a :Phrase, else HAS_TERM, with the
// spelling the chunk writes. Counts are not touched: a full run writes them on the terms.
// params: $pairs (c: chunk id, t: term id, type, surface)
// returns: created (HAS_PHRASE links among them)
UNWIND $pairs AS pair
MATCH (c:Chunk {id: pair.c})
MATCH (t:Term {id: pair.t})
CREATE (c)-[:$(pair.type) {surface: pair.surface}]->(t)
RETURN sum(CASE WHEN pair.type = 'HAS_PHRASE' THEN 1 ELSE 0 END) AS created
