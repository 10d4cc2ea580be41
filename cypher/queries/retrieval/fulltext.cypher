// Full-text (BM25) search over chunk text with the accent-folding analyzer; $query is a
// Lucene query whose special characters were escaped by the caller (an empty one finds nothing).
// $about (entity ids, or null): only chunks that MENTION one of them; the index cannot be asked
// for those, so its hits are filtered (the caller asks for many more: base.fetch_size).
// params: $query, $k, $fetch, $corpus, $from, $to, $about, $scope
// returns: chunkId, documentId, title, uri, text, score
WITH $query AS query WHERE query <> ''
CALL db.index.fulltext.queryNodes('chunk_text', query, {limit: $fetch}) YIELD node AS c, score
MATCH (c)-[:FROM_DOCUMENT]->(d:Document)
WHERE ($corpus IS NULL OR d.corpus = $corpus) AND ($scope IS NULL OR d.corpus IN $scope)
  AND ($from IS NULL OR d.date >= $from)
  AND ($to IS NULL OR d.date <= $to)
  AND ($about IS NULL OR EXISTS { (c)-[:MENTIONS]->(named:__Entity__) WHERE named.id IN $about })
RETURN c.id AS chunkId, d.id AS documentId, d.title AS title, d.uri AS uri, c.text AS text, score
ORDER BY score DESC
LIMIT $k
