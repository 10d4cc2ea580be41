// One page of chunks, in id order after $after, with the title of what they are about, the
// vocabulary a run stored on them and the words their clauses start with: what a full
// phrase run reads.
// params: $after, $limit
// returns: id, title, text, lowerWords, leads
MATCH (c:Chunk)
WHERE c.id > $after
WITH c ORDER BY c.id LIMIT $limit
OPTIONAL MATCH (c)-[:FROM_DOCUMENT]->(d:Document)
RETURN c.id AS id, coalesce(c.title, d.title) AS title, c.text AS text, c.lowerWords AS lowerWords,
       [(c)-[:LEADS]->(w:Word) | w.id] AS leads
ORDER BY id
