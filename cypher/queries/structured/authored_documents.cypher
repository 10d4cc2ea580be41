// The documents the persons $ids authored, in the filters' scope, each with its first chunk
// (what cites it) and the author it was found through; one row per document.
// params: $ids, $corpus, $exclude, $from, $to, $scope
// returns: documentId, title, uri, date, chunks, chunkId, text, authors
UNWIND $ids AS pid
MATCH (p:Person {id: pid})-[:AUTHORED]->(d:Document)
WHERE ($corpus IS NULL OR d.corpus = $corpus) AND ($scope IS NULL OR d.corpus IN $scope)
  AND none(l IN labels(d) WHERE l IN $exclude)
  AND ($from IS NULL OR d.date >= $from)
  AND ($to IS NULL OR d.date <= $to)
WITH d, collect(DISTINCT p.name) AS authors
CALL (d) {
  OPTIONAL MATCH (c:Chunk)-[:FROM_DOCUMENT]->(d)
  WITH c ORDER BY c.index
  RETURN collect(c) AS chunks
}
RETURN d.id AS documentId, d.title AS title, d.uri AS uri, d.date AS date, size(chunks) AS chunks,
       chunks[0].id AS chunkId, chunks[0].text AS text, authors
ORDER BY toLower(coalesce(d.title, d.id)), d.id
