// Chunks that mention the entities named in the question by a rule of $aboutRules (the chunks
// about them), with their similarity to it. The rule is checked before the $perEntity cut: the more
// passages name an entity in passing, the larger the corpus, and the passage about it must not fall
// behind them.
// params: $entityIds, $embedding, $perEntity, $aboutRules, $corpus, $from, $to, $about, $scope
// returns: chunkId, documentId, title, uri, text, similarity, entity, rule
UNWIND $entityIds AS entityId
MATCH (e:__Entity__ {id: entityId})<-[m:MENTIONS]-(n:Chunk)
WHERE m.rule IN $aboutRules
WITH e, collect({n: n, rule: m.rule})[0..$perEntity] AS hits
UNWIND hits AS hit
WITH e, hit.n AS n, hit.rule AS rule
MATCH (n)-[:FROM_DOCUMENT]->(d:Document)
WHERE ($corpus IS NULL OR d.corpus = $corpus) AND ($scope IS NULL OR d.corpus IN $scope)
  AND ($from IS NULL OR d.date >= $from)
  AND ($to IS NULL OR d.date <= $to)
  AND ($about IS NULL OR EXISTS { (n)-[:MENTIONS]->(named:__Entity__) WHERE named.id IN $about })
RETURN n.id AS chunkId, d.id AS documentId, d.title AS title, d.uri AS uri, n.text AS text,
       vector.similarity.cosine(n.embedding, $embedding) AS similarity, coalesce(e.name, e.id) AS entity, rule
