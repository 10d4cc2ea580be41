// Drop a stale PPR projection.
// params: $name
// returns: graphName
CALL gds.graph.drop($name, false) YIELD graphName
RETURN graphName
