// Chunks linked to seed chunks through an entity both mention (for titles: the passage
// about a topic the seed names, or a passage naming the seed's own topic), with their own
// similarity to the question and how common the linking entity is.
// params: $seedIds, $embedding, $perEntity, $corpus, $from, $to
// returns: seedId, chunkId, documentId, title, uri, text, similarity, degree, entity, seedRule, linkedRule
UNWIND $seedIds AS seedId
MATCH (s:Chunk {id: seedId})-[m1:MENTIONS]->(e:__Entity__)
WITH seedId, s, e, m1.rule AS seedRule, COUNT { (e)<-[:MENTIONS]-(:Chunk) } AS degree
MATCH (e)<-[m2:MENTIONS]-(n:Chunk)
WHERE n <> s
WITH seedId, e, degree, seedRule, collect({n: n, rule: m2.rule})[0..$perEntity] AS linked
UNWIND linked AS link
WITH seedId, e, degree, seedRule, link.n AS n, link.rule AS linkedRule
MATCH (n)-[:FROM_DOCUMENT]->(d:Document)
WHERE ($corpus IS NULL OR d.corpus = $corpus)
  AND ($from IS NULL OR d.date >= $from)
  AND ($to IS NULL OR d.date <= $to)
RETURN seedId, n.id AS chunkId, d.id AS documentId, d.title AS title, d.uri AS uri, n.text AS text,
       vector.similarity.cosine(n.embedding, $embedding) AS similarity, degree, coalesce(e.name, e.id) AS entity,
       seedRule, linkedRule
