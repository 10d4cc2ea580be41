// One page of chunks to link, in id order after $after: id, document, section and (when
// $withText) the text. Chunks of another corpus than $corpus (when given) are left out.
// params: $after, $limit, $corpus, $withText
// returns: id, docId, section, text
MATCH (c:Chunk)-[:FROM_DOCUMENT]->(d:Document)
WHERE c.id > $after AND ($corpus IS NULL OR d.corpus = $corpus)
RETURN c.id AS id, d.id AS docId, c.section AS section, CASE WHEN $withText THEN c.text END AS text
ORDER BY c.id
LIMIT $limit
