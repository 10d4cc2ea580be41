// The graph retrieval mode in one procedure call (graphrag.retrieve.graph): the rows
// GraphRetriever.rank computes from retrieval/hybrid.cypher, entity_chunks.cypher and
// seed_neighbours.cypher, in its order. $config holds k, entityIds, terms, corpus, from, to and
// the graph mode's weights.
// params: $embedding, $query, $config
// returns: chunkId, documentId, title, uri, text, score, via
CALL graphrag.retrieve.graph($embedding, $query, $config)
YIELD chunkId, documentId, title, uri, text, score, via
RETURN chunkId, documentId, title, uri, text, score, via
