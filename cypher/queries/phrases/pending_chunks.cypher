// Chunks waiting for a phrase run (new, or re-decided by a vocabulary change), with the words
// their clauses start with that the corpus also writes in lower case, and their terms now.
// params: $limit
// returns: id, title, text, known, terms ([id, surface])
MATCH (c:PendingPhrases)
WITH c LIMIT $limit
OPTIONAL MATCH (c)-[:FROM_DOCUMENT]->(d:Document)
RETURN c.id AS id, coalesce(c.title, d.title) AS title, c.text AS text,
       [(c)-[:LEADS]->(w:Word) WHERE w.lower > 0 | w.id] AS known,
       [(c)-[r:HAS_PHRASE|HAS_TERM]->(t:Term) | [t.id, r.surface]] AS terms
