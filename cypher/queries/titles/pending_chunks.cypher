// One page of the chunks loaded or changed since the last title run (:PendingTitles) of
// documents in $corpus (all when null), in id order after $after; as titles/chunks.
// params: $after, $limit, $corpus
// returns: ids, docIds, titles, texts, pending
MATCH (c:PendingTitles)-[:FROM_DOCUMENT]->(d:Document)
WHERE c.id > $after AND ($corpus IS NULL OR d.corpus = $corpus)
WITH c, d ORDER BY c.id LIMIT $limit
WITH c, d, CASE WHEN d.title IS NULL OR d:EntityDocument THEN '' ELSE d.title END AS title
RETURN collect(c.id) AS ids, collect(d.id) AS docIds, collect(title) AS titles,
       collect(CASE WHEN title = '' THEN '' ELSE coalesce(c.text, '') END) AS texts,
       collect(true) AS pending
