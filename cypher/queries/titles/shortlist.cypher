// The chunks the full-text index shortlists for any of $queries (new titles, as Lucene
// queries: linkers/matcher.py fulltext_query) in titled documents of $corpus (all when null),
// in id order after $after: the candidates the exact matcher then reads.
// params: $queries, $corpus, $after, $limit
// returns: ids, docIds, titles, texts
UNWIND $queries AS q
CALL db.index.fulltext.queryNodes('chunk_text', q) YIELD node
WITH DISTINCT node AS c
WHERE c.id > $after
MATCH (c)-[:FROM_DOCUMENT]->(d:Document)
WHERE d.title IS NOT NULL AND NOT d:EntityDocument AND ($corpus IS NULL OR d.corpus = $corpus)
WITH c, d ORDER BY c.id LIMIT $limit
RETURN collect(c.id) AS ids, collect(d.id) AS docIds, collect(d.title) AS titles, collect(coalesce(c.text, '')) AS texts
