// How many graphs the GDS catalog holds (none after a build).
// params: none
// returns: n
CALL gds.graph.list() YIELD graphName
RETURN count(*) AS n
