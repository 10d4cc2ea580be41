// The phrase graph now: phrases (2..max chunks), all terms, chunk–phrase links, and terms too
// common to link (more than $maxChunks chunks; read from the term_chunks index).
// params: $maxChunks
// returns: phrases, terms, links, tooCommon
CALL () { MATCH (p:Phrase) RETURN count(p) AS phrases }
CALL () { MATCH (t:Term) RETURN count(t) AS terms }
CALL () { MATCH ()-[r:HAS_PHRASE]->() RETURN count(r) AS links }
CALL () { MATCH (t:Term) WHERE t.chunks > $maxChunks RETURN count(t) AS tooCommon }
RETURN phrases, terms, links, tooCommon
