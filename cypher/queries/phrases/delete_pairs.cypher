// Chunk–term pairs a full run no longer makes (or makes with another type or spelling).
// params: $pairs (c: chunk id, t: term id)
// returns: removed (HAS_PHRASE links among them)
UNWIND $pairs AS pair
MATCH (:Chunk {id: pair.c})-[r:HAS_PHRASE|HAS_TERM]->(:Term {id: pair.t})
WITH r, type(r) = 'HAS_PHRASE' AS link
DELETE r
RETURN sum(CASE WHEN link THEN 1 ELSE 0 END) AS removed
