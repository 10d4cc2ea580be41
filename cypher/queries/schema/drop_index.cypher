// Drop one index by name.
// params: $name
// returns: nothing
DROP INDEX $name IF EXISTS
