// Graph expansion around seed chunks: their NEXT_CHUNK neighbours, and chunks that mention
// the entities the seeds mention; plus chunks that mention the question's entities, directly
// or one relationship away. Each expanded chunk inherits a share of the score that brought
// it, damped by how many chunks mention the entity, so a hub entity cannot flood the results.
// params: $seeds, $entityIds, $corpus, $from, $to, $neighbourWeight, $entityWeight, $questionWeight, $hopWeight, $perEntity
// returns: chunkId, documentId, title, uri, text, score, via
CALL () {
  UNWIND $seeds AS seed
  MATCH (s:Chunk {id: seed.chunkId})
  CALL (s, seed) {
    MATCH (s)-[:NEXT_CHUNK]-(n:Chunk)
    RETURN n AS c, seed.score * $neighbourWeight AS part, 'next_chunk of ' + s.id AS via
    UNION ALL
    MATCH (s)-[:MENTIONS]->(e:__Entity__)
    WITH e, seed, s, COUNT { (e)<-[:MENTIONS]-(:Chunk) } AS degree
    MATCH (e)<-[:MENTIONS]-(n:Chunk) WHERE n <> s
    WITH e, seed, s, degree, collect(n)[0..$perEntity] AS ns
    UNWIND ns AS n
    RETURN n AS c, seed.score * $entityWeight / log(2.718281828 + degree) AS part,
           'entity ' + coalesce(e.name, e.id) + ' of ' + s.id AS via
  }
  RETURN c, part, via
  UNION ALL
  UNWIND $entityIds AS entityId
  MATCH (e:__Entity__ {id: entityId})
  WITH e, COUNT { (e)<-[:MENTIONS]-(:Chunk) } AS degree
  CALL (e) {
    MATCH (e)<-[:MENTIONS]-(n:Chunk)
    RETURN n, 1.0 AS w, 'question entity ' + coalesce(e.name, e.id) AS via
    UNION ALL
    MATCH (e)-[r]-(x:__Entity__)<-[:MENTIONS]-(n:Chunk)
    WHERE NOT type(r) IN ['MENTIONS', 'FROM_CHUNK']
    RETURN n, $hopWeight AS w,
           'question entity ' + coalesce(e.name, e.id) + ' -' + type(r) + '- ' + coalesce(x.name, x.id) AS via
  }
  WITH e, degree, collect({n: n, w: w, via: via})[0..$perEntity] AS hits
  UNWIND hits AS hit
  RETURN hit.n AS c, $questionWeight * hit.w / log(2.718281828 + degree) AS part, hit.via AS via
}
WITH c, sum(part) AS score, collect(via)[0..5] AS via
MATCH (c)-[:FROM_DOCUMENT]->(d:Document)
WHERE ($corpus IS NULL OR d.corpus = $corpus)
  AND ($from IS NULL OR d.date >= $from)
  AND ($to IS NULL OR d.date <= $to)
RETURN c.id AS chunkId, d.id AS documentId, d.title AS title, d.uri AS uri, c.text AS text, score, via
ORDER BY score DESC
LIMIT 100
