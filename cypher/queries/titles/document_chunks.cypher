// The chunks of documents $docIds (new or renamed since the last title run) that are not
// pending anyway; as titles/chunks.
// params: $docIds
// returns: ids, docIds, titles, texts, pending
UNWIND $docIds AS docId
MATCH (c:Chunk)-[:FROM_DOCUMENT]->(d:Document {id: docId})
WHERE NOT c:PendingTitles
WITH c, d ORDER BY c.id
WITH c, d, CASE WHEN d.title IS NULL OR d:EntityDocument THEN '' ELSE d.title END AS title
RETURN collect(c.id) AS ids, collect(d.id) AS docIds, collect(title) AS titles,
       collect(CASE WHEN title = '' THEN '' ELSE coalesce(c.text, '') END) AS texts,
       collect(false) AS pending
