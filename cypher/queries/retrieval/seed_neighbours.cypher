// The chunks a seed chunk leads to, with how strongly and why: a shared phrase (`graphrag
// link phrases`) adds 1 / (chunks sharing it), ignoring phrases more than $maxPhraseChunks
// chunks share; a topic the seed names whose own chunk this is (`graphrag link titles`,
// or any entity with a chunk about it) adds $aboutWeight. Each neighbour comes with its
// similarity to the question. Chunks of the seed's own document are not neighbours: the
// point is the next document.
// params: $seedIds, $embedding, $maxPhraseChunks, $aboutRules, $aboutWeight, $corpus, $from, $to
// returns: seedId, chunkId, documentId, title, uri, text, similarity, weight, via
UNWIND $seedIds AS seedId
MATCH (s:Chunk {id: seedId})-[:FROM_DOCUMENT]->(sd:Document)
CALL (s) {
  MATCH (s)-[:HAS_PHRASE]->(p:Phrase)<-[:HAS_PHRASE]-(n:Chunk)
  WHERE p.chunks <= $maxPhraseChunks AND n <> s
  RETURN n, 1.0 / p.chunks AS w, p.name AS via
  UNION ALL
  MATCH (s)-[m1:MENTIONS]->(e:__Entity__)<-[m2:MENTIONS]-(n:Chunk)
  WHERE NOT m1.rule IN $aboutRules AND m2.rule IN $aboutRules AND n <> s
  RETURN n, $aboutWeight AS w, coalesce(e.name, e.id) AS via
}
WITH seedId, sd, n, sum(w) AS weight, collect(DISTINCT via) AS vias
MATCH (n)-[:FROM_DOCUMENT]->(d:Document)
WHERE d <> sd
  AND ($corpus IS NULL OR d.corpus = $corpus)
  AND ($from IS NULL OR d.date >= $from)
  AND ($to IS NULL OR d.date <= $to)
RETURN seedId, n.id AS chunkId, d.id AS documentId, d.title AS title, d.uri AS uri, n.text AS text,
       vector.similarity.cosine(n.embedding, $embedding) AS similarity, weight, vias[0..3] AS via
