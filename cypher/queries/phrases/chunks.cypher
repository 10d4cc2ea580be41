// One page of chunks, in id order after $after, with the title of what they are about:
// the text the phrase linker reads.
// params: $after, $limit
// returns: id, title, text
MATCH (c:Chunk)-[:FROM_DOCUMENT]->(d:Document)
WHERE c.id > $after
RETURN c.id AS id, coalesce(c.title, d.title) AS title, c.text AS text
ORDER BY c.id
LIMIT $limit
