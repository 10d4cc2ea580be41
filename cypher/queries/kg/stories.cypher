// Stories to extract, with their chunks in order and the extraction checkpoint.
// params: $corpus
// returns: id, title, extractionChecksum, chunks
MATCH (d:Document:Story)
WHERE $corpus IS NULL OR d.corpus = $corpus
CALL (d) {
  MATCH (c:Chunk)-[:FROM_DOCUMENT]->(d)
  WITH c ORDER BY c.index
  RETURN collect({id: c.id, index: c.index, text: c.text}) AS chunks
}
RETURN d.id AS id, d.title AS title, d.extractionChecksum AS extractionChecksum, chunks
ORDER BY d.id
