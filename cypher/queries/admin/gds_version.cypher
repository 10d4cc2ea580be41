// Graph Data Science's version (fails when GDS is not installed).
// params: none
// returns: version
RETURN gds.version() AS version
