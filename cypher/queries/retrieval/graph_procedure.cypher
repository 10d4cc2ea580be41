// The graph retrieval mode in one procedure call (graphrag.retrieve.graph): the rows
// GraphRetriever.rank computes from retrieval/hybrid.cypher, entity_chunks.cypher and
// seed_neighbours.cypher, in its order. $config holds k, spare (rows past k, for copies), entityIds,
// terms, corpus, from, to and the graph mode's weights. $maxCopies (or null: not read): each row
// also names the other documents in scope holding a chunk of the same content hash, as
// chunk_copies.cypher does, so copies are settled in the same round trip.
// params: $embedding, $query, $config, $maxCopies, $scope
// returns: chunkId, documentId, title, uri, text, score, via, contentHash, copies (null without $maxCopies)
CALL graphrag.retrieve.graph($embedding, $query, $config)
YIELD chunkId, documentId, title, uri, text, score, via
WITH chunkId, documentId, title, uri, text, score, via, $config.corpus AS corpus, $config.from AS from, $config.to AS to
OPTIONAL CALL (chunkId, documentId, corpus, from, to) {
  WITH chunkId WHERE $maxCopies IS NOT NULL
  MATCH (c:Chunk {id: chunkId})
  CALL (c, documentId, corpus, from, to) {
    MATCH (other:Chunk {contentHash: c.contentHash})-[:FROM_DOCUMENT]->(od:Document)
    WHERE other <> c AND od.id <> documentId
      AND (corpus IS NULL OR od.corpus = corpus) AND ($scope IS NULL OR od.corpus IN $scope)
      AND (from IS NULL OR od.date >= from)
      AND (to IS NULL OR od.date <= to)
    WITH od, min(other.id) AS copyId
    ORDER BY od.id
    LIMIT coalesce($maxCopies, 0)
    RETURN collect({documentId: od.id, title: od.title, uri: od.uri, chunkId: copyId}) AS copies
  }
  RETURN c.contentHash AS contentHash, copies
}
RETURN chunkId, documentId, title, uri, text, score, via, contentHash, copies
