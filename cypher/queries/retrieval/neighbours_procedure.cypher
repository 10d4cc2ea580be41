// The rows of retrieval/seed_neighbours.cypher, and each neighbour's similarity to its seed,
// by one procedure call (graphrag.retrieve.neighbours).
// params: $seedIds, $embedding, $config
// returns: seedId, chunkId, documentId, title, uri, text, similarity, seedSimilarity, weight, via
CALL graphrag.retrieve.neighbours($seedIds, $embedding, $config)
YIELD seedId, chunkId, documentId, title, uri, text, similarity, seedSimilarity, weight, via
RETURN seedId, chunkId, documentId, title, uri, text, similarity, seedSimilarity, weight, via
