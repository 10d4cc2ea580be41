// Hybrid search: weighted reciprocal-rank fusion of vector and full-text results, each
// filtered by corpus and date before ranking (so filters hold in hybrid mode too). $query is a
// Lucene query escaped by the caller; an empty one searches vectors only.
// $about (entity ids, or null): only chunks that MENTION one of them. The vector list is then
// those chunks ranked by cosine (vector.cypher says why); the full-text hits are filtered.
// score = sum over lists of weight / (rrfK + rank), rank starting at 1; equal scores in chunk id
// order (so the list is the same on every run, and graphrag.retrieve.graph's seeds are these).
// $maxCopies (or null: not read): each row also names the other documents in scope holding a chunk of
// the same content hash, as chunk_copies.cypher does, so copies are settled without another query.
// params: $embedding, $query, $k, $fetch, $corpus, $from, $to, $about, $vectorWeight, $fulltextWeight, $rrfK, $maxCopies, $scope
// returns: chunkId, documentId, title, uri, text, score, via, contentHash, copies (null without $maxCopies)
CALL () {
  CALL () {
    WITH $about AS about WHERE about IS NULL
    CALL db.index.vector.queryNodes('chunk_embedding', $fetch, $embedding) YIELD node AS c, score
    RETURN c, score
    UNION ALL
    UNWIND coalesce($about, []) AS entityId
    MATCH (:__Entity__ {id: entityId})<-[:MENTIONS]-(c:Chunk)
    WITH DISTINCT c
    WITH c, vector.similarity.cosine(c.embedding, $embedding) AS score
    WHERE score IS NOT NULL
    RETURN c, score ORDER BY score DESC, c.id
  }
  MATCH (c)-[:FROM_DOCUMENT]->(d:Document)
  WHERE ($corpus IS NULL OR d.corpus = $corpus) AND ($scope IS NULL OR d.corpus IN $scope)
    AND ($from IS NULL OR d.date >= $from)
    AND ($to IS NULL OR d.date <= $to)
  WITH c ORDER BY score DESC
  WITH collect(c) AS ranked
  UNWIND range(0, size(ranked) - 1) AS i
  RETURN ranked[i] AS c, $vectorWeight / ($rrfK + i + 1) AS part, 'vector#' + toString(i + 1) AS via
  UNION ALL
  WITH $query AS query WHERE query <> ''  // a question without a word to search for: vectors only
  CALL db.index.fulltext.queryNodes('chunk_text', query, {limit: $fetch}) YIELD node AS c, score
  MATCH (c)-[:FROM_DOCUMENT]->(d:Document)
  WHERE ($corpus IS NULL OR d.corpus = $corpus) AND ($scope IS NULL OR d.corpus IN $scope)
    AND ($from IS NULL OR d.date >= $from)
    AND ($to IS NULL OR d.date <= $to)
    AND ($about IS NULL OR EXISTS { (c)-[:MENTIONS]->(named:__Entity__) WHERE named.id IN $about })
  WITH c ORDER BY score DESC
  WITH collect(c) AS ranked
  UNWIND range(0, size(ranked) - 1) AS i
  RETURN ranked[i] AS c, $fulltextWeight / ($rrfK + i + 1) AS part, 'fulltext#' + toString(i + 1) AS via
}
WITH c, sum(part) AS score, collect(via) AS via
MATCH (c)-[:FROM_DOCUMENT]->(d:Document)
WITH c, d, score, via
ORDER BY score DESC, c.id
LIMIT $k
OPTIONAL CALL (c, d) {
  WITH c, d WHERE $maxCopies IS NOT NULL
  MATCH (other:Chunk {contentHash: c.contentHash})-[:FROM_DOCUMENT]->(od:Document)
  WHERE other <> c AND od <> d
    AND ($corpus IS NULL OR od.corpus = $corpus) AND ($scope IS NULL OR od.corpus IN $scope)
    AND ($from IS NULL OR od.date >= $from)
    AND ($to IS NULL OR od.date <= $to)
  WITH od, min(other.id) AS copyId
  ORDER BY od.id
  LIMIT coalesce($maxCopies, 0)
  RETURN collect({documentId: od.id, title: od.title, uri: od.uri, chunkId: copyId}) AS copies
}
RETURN c.id AS chunkId, d.id AS documentId, d.title AS title, d.uri AS uri, c.text AS text, score, via,
       CASE WHEN $maxCopies IS NOT NULL THEN c.contentHash END AS contentHash, copies
ORDER BY score DESC, chunkId
