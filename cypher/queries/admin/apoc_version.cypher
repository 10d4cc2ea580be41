// APOC's version (fails when APOC is not installed).
// params: none
// returns: version
RETURN apoc.version() AS version
