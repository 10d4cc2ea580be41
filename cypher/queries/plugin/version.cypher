// The graphrag plugin's version.
// params: none
// returns: version
RETURN graphrag.version() AS version
