// The chunks personalised PageRank ranked (the Python walk, without the plugin), with their
// documents, filters held; in the order of $ids.
// params: $ids, $corpus, $from, $to, $about, $scope
// returns: chunkId, documentId, title, uri, text, rank
UNWIND range(0, size($ids) - 1) AS rank
MATCH (c:Chunk {id: $ids[rank]})-[:FROM_DOCUMENT]->(d:Document)
WHERE ($corpus IS NULL OR d.corpus = $corpus) AND ($scope IS NULL OR d.corpus IN $scope)
  AND ($from IS NULL OR d.date >= $from)
  AND ($to IS NULL OR d.date <= $to)
  AND ($about IS NULL OR EXISTS { (c)-[:MENTIONS]->(named:__Entity__) WHERE named.id IN $about })
RETURN c.id AS chunkId, d.id AS documentId, d.title AS title, d.uri AS uri, c.text AS text, rank
ORDER BY rank
