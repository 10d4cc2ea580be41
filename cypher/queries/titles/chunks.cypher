// One page of chunks of documents in $corpus (all when null), in id order after $after, as
// parallel lists: id, document, the document's title ('' for untitled and entity documents,
// whose chunks name no topic), for titled ones the text, and whether it is :PendingTitles.
// params: $after, $limit, $corpus
// returns: ids, docIds, titles, texts, pending
MATCH (c:Chunk)-[:FROM_DOCUMENT]->(d:Document)
WHERE c.id > $after AND ($corpus IS NULL OR d.corpus = $corpus)
WITH c, d ORDER BY c.id LIMIT $limit
WITH c, d, CASE WHEN d.title IS NULL OR d:EntityDocument THEN '' ELSE d.title END AS title
RETURN collect(c.id) AS ids, collect(d.id) AS docIds, collect(title) AS titles,
       collect(CASE WHEN title = '' THEN '' ELSE coalesce(c.text, '') END) AS texts,
       collect(c:PendingTitles) AS pending
