// Phrases an earlier version wrote become terms (one node per folded phrase), a page at a time.
// params: $limit
// returns: adopted
MATCH (p:Phrase)
WHERE NOT p:Term
WITH p LIMIT $limit
SET p:Term
RETURN count(p) AS adopted
