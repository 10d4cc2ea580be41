// The chunks the full-text index shortlists for any of $queries (names, as Lucene queries:
// linkers/matcher.py fulltext_query) in documents of $corpus (all when null), in id order
// after $after, as parallel lists: the candidates the exact matcher then reads.
// params: $queries, $corpus, $after, $limit
// returns: ids, docIds, sections, texts
UNWIND $queries AS q
CALL db.index.fulltext.queryNodes('chunk_text', q) YIELD node
WITH DISTINCT node AS c
WHERE c.id > $after
MATCH (c)-[:FROM_DOCUMENT]->(d:Document)
WHERE $corpus IS NULL OR d.corpus = $corpus
WITH c, d ORDER BY c.id LIMIT $limit
RETURN collect(c.id) AS ids, collect(d.id) AS docIds, collect(coalesce(c.section, '')) AS sections,
       collect(coalesce(c.text, '')) AS texts
