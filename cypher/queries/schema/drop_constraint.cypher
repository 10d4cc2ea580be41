// Drop one constraint by name (its backing index goes with it).
// params: $name
// returns: nothing
DROP CONSTRAINT $name IF EXISTS
