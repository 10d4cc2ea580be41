// Who wrote a document named by its title: documents with AUTHORED edges whose title is
// $title or holds it (lower-cased $title, compared with the lower-cased title), each with its
// authors in name order and its first chunk (what cites it).
// params: $title, $limit
// returns: documentId, title, uri, exact, chunkId, text, authors ([{id, name}])
MATCH (d:Document)<-[:AUTHORED]-(:Person)
WITH DISTINCT d
WHERE toLower(d.title) CONTAINS $title
CALL (d) {
  MATCH (p:Person)-[:AUTHORED]->(d)
  WITH p ORDER BY p.name
  RETURN collect({id: p.id, name: p.name}) AS authors
}
CALL (d) {
  OPTIONAL MATCH (c:Chunk)-[:FROM_DOCUMENT]->(d)
  WITH c ORDER BY c.index
  RETURN collect(c)[0] AS first
}
RETURN d.id AS documentId, d.title AS title, d.uri AS uri, toLower(d.title) = $title AS exact,
       first.id AS chunkId, first.text AS text, authors
ORDER BY exact DESC, size(d.title), d.id
LIMIT $limit
