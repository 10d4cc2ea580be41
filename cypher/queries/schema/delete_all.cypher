// Delete every node and relationship, migration records included, in batches (auto-commit).
// params: $batch
// returns: nothing
MATCH (n)
CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF $batch ROWS
