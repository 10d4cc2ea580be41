// The rows of retrieval/seed_neighbours.cypher by one procedure call (graphrag.retrieve.neighbours):
// each seed's strongest $config.perSeed neighbours, with the same similarity, seedSimilarity,
// weight and strength.
// params: $seedIds, $embedding, $config
// returns: seedId, chunkId, documentId, title, uri, text, similarity, seedSimilarity, weight, strength, via
CALL graphrag.retrieve.neighbours($seedIds, $embedding, $config)
YIELD seedId, chunkId, documentId, title, uri, text, similarity, seedSimilarity, weight, strength, via
RETURN seedId, chunkId, documentId, title, uri, text, similarity, seedSimilarity, weight, strength, via
