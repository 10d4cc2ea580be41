// Personalised PageRank from weighted seeds (graphrag.ppr), chunks ranked by it, filters held.
// params: $seeds, $config, $corpus, $from, $to, $about, $scope
// returns: chunkId, documentId, title, uri, text, score
CALL graphrag.ppr($seeds, $config) YIELD node, score
WITH collect({c: node, score: score}) AS ranked
UNWIND range(0, size(ranked) - 1) AS rank
WITH ranked[rank].c AS c, ranked[rank].score AS score, rank
MATCH (c)-[:FROM_DOCUMENT]->(d:Document)
WHERE ($corpus IS NULL OR d.corpus = $corpus) AND ($scope IS NULL OR d.corpus IN $scope)
  AND ($from IS NULL OR d.date >= $from)
  AND ($to IS NULL OR d.date <= $to)
  AND ($about IS NULL OR EXISTS { (c)-[:MENTIONS]->(named:__Entity__) WHERE named.id IN $about })
RETURN c.id AS chunkId, d.id AS documentId, d.title AS title, d.uri AS uri, c.text AS text, score
ORDER BY rank
