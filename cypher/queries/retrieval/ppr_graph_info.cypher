// The projected chunk–entity graph used by personalized PageRank, if it exists.
// params: $name
// returns: nodeCount, relationshipCount
CALL gds.graph.list($name) YIELD nodeCount, relationshipCount
RETURN nodeCount, relationshipCount
