// Each ranked chunk's content hash, and the other documents in scope that hold a chunk with the
// same hash (a copied file is a second document with the same chunks): retrieval keeps one chunk
// per hash and lists these as "also in". At most $maxCopies documents per chunk, by id, each with
// its chunk of that text (the first by id, should the text repeat within it).
// params: $ids (chunk ids), $corpus, $from, $to, $maxCopies, $scope
// returns: chunkId, contentHash, copies [{documentId, title, uri, chunkId}]
UNWIND $ids AS id
MATCH (c:Chunk {id: id})-[:FROM_DOCUMENT]->(d:Document)
CALL (c, d) {
  MATCH (other:Chunk {contentHash: c.contentHash})-[:FROM_DOCUMENT]->(od:Document)
  WHERE other <> c AND od <> d
    AND ($corpus IS NULL OR od.corpus = $corpus) AND ($scope IS NULL OR od.corpus IN $scope)
    AND ($from IS NULL OR od.date >= $from)
    AND ($to IS NULL OR od.date <= $to)
  WITH od, min(other.id) AS chunkId
  ORDER BY od.id
  LIMIT $maxCopies
  RETURN collect({documentId: od.id, title: od.title, uri: od.uri, chunkId: chunkId}) AS copies
}
RETURN c.id AS chunkId, c.contentHash AS contentHash, copies
