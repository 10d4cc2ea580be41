// Delete every node and relationship, in batches (benchmarks use it on their own throw-away
// server between runs; it keeps the schema). Must run as an auto-commit statement.
// params: none
// returns: nothing
MATCH (n)
CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 5000 ROWS
