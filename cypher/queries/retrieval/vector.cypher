// Vector search over chunk embeddings, filtered by corpus and document date.
// Run it in Neo4j Browser: :param embedding => [...384 floats]; :param k => 5; :param fetch => 50;
// :param corpus => null; :param from => null; :param to => null
// params: $embedding, $k, $fetch, $corpus, $from, $to
// returns: chunkId, documentId, title, uri, text, score
CALL db.index.vector.queryNodes('chunk_embedding', $fetch, $embedding) YIELD node AS c, score
MATCH (c)-[:FROM_DOCUMENT]->(d:Document)
WHERE ($corpus IS NULL OR d.corpus = $corpus)
  AND ($from IS NULL OR d.date >= $from)
  AND ($to IS NULL OR d.date <= $to)
RETURN c.id AS chunkId, d.id AS documentId, d.title AS title, d.uri AS uri, c.text AS text, score
ORDER BY score DESC
LIMIT $k
