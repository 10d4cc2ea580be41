// Wait until every index is ONLINE (or the timeout passes, which raises).
// params: $seconds
// returns: nothing
CALL db.awaitIndexes($seconds)
