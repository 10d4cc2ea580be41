// Chunks waiting for a phrase run that have not yet given their words to the vocabulary.
// params: $limit
// returns: id, title, text
MATCH (c:PendingPhrases)
WHERE c.lowerWords IS NULL
WITH c LIMIT $limit
OPTIONAL MATCH (c)-[:FROM_DOCUMENT]->(d:Document)
RETURN c.id AS id, coalesce(c.title, d.title) AS title, c.text AS text
