// One page of chunks in id order after $after: what community reports read of each (its text
// with the title of what it is about, embedding, document and corpus).
// params: $after, $limit
// returns: id, text, embedding, document, documentTitle, corpus
MATCH (c:Chunk)-[:FROM_DOCUMENT]->(d:Document)
WHERE c.id > $after
RETURN c.id AS id, coalesce(c.title, d.title, '') + '.\n' + coalesce(c.text, '') AS text, c.embedding AS embedding,
       d.id AS document, d.title AS documentTitle, coalesce(d.corpus, c.corpus) AS corpus
ORDER BY c.id
LIMIT $limit
