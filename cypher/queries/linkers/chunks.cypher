// One page of chunks to link, in id order after $after, as parallel lists in one row
// (thousands of chunks decode far faster as lists than as records): id, document, section
// and (when $withText) the text. Chunks of another corpus than $corpus (when given) are left out.
// params: $after, $limit, $corpus, $withText
// returns: ids, docIds, sections, texts
MATCH (c:Chunk)-[:FROM_DOCUMENT]->(d:Document)
WHERE c.id > $after AND ($corpus IS NULL OR d.corpus = $corpus)
WITH c, d
ORDER BY c.id
LIMIT $limit
RETURN collect(c.id) AS ids, collect(d.id) AS docIds, collect(coalesce(c.section, '')) AS sections,
       collect(CASE WHEN $withText THEN coalesce(c.text, '') ELSE '' END) AS texts
