// The chunks each seed chunk leads to, the strongest $perSeed per seed. Links: a shared phrase
// (`graphrag link phrases`) adds 1 / (chunks sharing it), ignoring phrases more than
// max($maxPhraseChunks, $phraseChunksShare x all chunks) chunks share (how common a name is depends on
// the size of the corpus: the count is Neo4j's count store, no scan), and all shared phrases together add at most $phraseCap (passages
// of one family or genus share many names without leading anywhere); a topic the seed names whose own chunk this is (`graphrag link
// titles`, or any entity with a chunk about it) adds $aboutWeight. Chunks of the seed's own
// document are not neighbours: the point is the next document.
// A neighbour is scored by what the question asks beyond the seed: its cosine with the question
// vector minus the part the seed already explains (q - (q.s) s, the residual, as multi-hop dense
// retrieval conditions the second hop on the first), plus $linkWeight x link weight.
// Only a seed's $leadPool most strongly linked neighbours (link weight, then chunk id) and those among
// the question's $leadHits nearest chunks (the vector index) are scored: their vectors are the only
// ones read, however many chunks share a phrase with the seed. One left out is weakly linked and far
// from the question (its strength is at most its cosine with the question over |q - (q.s) s| plus
// its small link weight), so it would not have been among the strongest.
// vector.similarity.cosine is (1 + cos) / 2, so cosines are taken back to [-1, 1] first.
// params: $seedIds, $embedding, $maxPhraseChunks, $phraseChunksShare, $phraseCap, $aboutRules, $aboutWeight, $linkWeight, $leadPool, $leadHits, $perSeed, $corpus, $from, $to, $about, $scope
// returns: seedId, chunkId, documentId, title, uri, text, similarity, seedSimilarity, weight, strength, via
CALL () {
  MATCH (c:Chunk)
  RETURN count(c) AS chunks
}
WITH CASE WHEN $phraseChunksShare * chunks > $maxPhraseChunks THEN $phraseChunksShare * chunks ELSE $maxPhraseChunks END AS phraseLimit
CALL () {
  OPTIONAL CALL () {
    WITH $leadHits AS leadHits WHERE leadHits > 0
    CALL db.index.vector.queryNodes('chunk_embedding', leadHits, $embedding) YIELD node
    RETURN collect(node) AS near
  }
  RETURN coalesce(near, []) AS hits
}
UNWIND $seedIds AS seedId
MATCH (s:Chunk {id: seedId})-[:FROM_DOCUMENT]->(sd:Document)
CALL (s, phraseLimit) {
  MATCH (s)-[:HAS_PHRASE]->(p:Phrase)<-[:HAS_PHRASE]-(n:Chunk)
  WHERE p.chunks <= phraseLimit AND n <> s
  RETURN n, 1.0 / p.chunks AS w, 0.0 AS t, p.name AS via
  UNION ALL
  MATCH (s)-[m1:MENTIONS]->(e:__Entity__)<-[m2:MENTIONS]-(n:Chunk)
  WHERE NOT m1.rule IN $aboutRules AND m2.rule IN $aboutRules AND n <> s
  RETURN n, 0.0 AS w, $aboutWeight AS t, coalesce(e.name, e.id) AS via
}
WITH hits, seedId, s, sd, n, sum(w) AS phrases, sum(t) AS topics, collect(DISTINCT via) AS vias
MATCH (n)-[:FROM_DOCUMENT]->(d:Document)
WHERE d <> sd
  AND ($corpus IS NULL OR d.corpus = $corpus) AND ($scope IS NULL OR d.corpus IN $scope)
  AND ($from IS NULL OR d.date >= $from)
  AND ($to IS NULL OR d.date <= $to)
  AND ($about IS NULL OR EXISTS { (n)-[:MENTIONS]->(named:__Entity__) WHERE named.id IN $about })
WITH hits, seedId, s, n, d, CASE WHEN phrases > $phraseCap THEN $phraseCap ELSE phrases END + topics AS weight, vias
ORDER BY weight DESC, n.id
WITH hits, seedId, s, collect({n: n, d: d, weight: weight, via: vias[0..3]}) AS linked
WITH seedId, s, linked[0..$leadPool] + [lead IN linked[$leadPool..] WHERE lead.n IN hits] AS leads
WITH seedId, leads, s.embedding AS se
WITH seedId, leads, se, 2 * vector.similarity.cosine(se, $embedding) - 1 AS qs
UNWIND leads AS lead
WITH seedId, qs, se, lead, lead.n.embedding AS ne
WITH seedId, qs, lead, 2 * vector.similarity.cosine(ne, $embedding) - 1 AS qn, 2 * vector.similarity.cosine(ne, se) - 1 AS sn
WITH seedId, lead, qn, sn,
     (qn - qs * sn) / sqrt(CASE WHEN 1 - qs * qs < 0.01 THEN 0.01 ELSE 1 - qs * qs END) + $linkWeight * lead.weight AS strength
ORDER BY strength DESC, lead.n.id
WITH seedId, collect({lead: lead, qn: qn, sn: sn, strength: strength})[0..$perSeed] AS top
UNWIND top AS t
WITH seedId, t, t.lead.n AS n, t.lead.d AS d
RETURN seedId, n.id AS chunkId, d.id AS documentId, d.title AS title, d.uri AS uri, n.text AS text,
       t.qn AS similarity, t.sn AS seedSimilarity, t.lead.weight AS weight, t.strength AS strength, t.lead.via AS via
