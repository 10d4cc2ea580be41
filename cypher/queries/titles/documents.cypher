// Documents with a title and their chunks, page by page (for registering titles as entities);
// entity documents are left out: they are about their entity already.
// params: $corpus, $skip, $limit
// returns: documentId, title, chunks
MATCH (d:Document)
WHERE d.title IS NOT NULL AND NOT d:EntityDocument AND ($corpus IS NULL OR d.corpus = $corpus)
WITH d ORDER BY d.id SKIP $skip LIMIT $limit
MATCH (c:Chunk)-[:FROM_DOCUMENT]->(d)
RETURN d.id AS documentId, d.title AS title, collect({id: c.id, text: c.text}) AS chunks
