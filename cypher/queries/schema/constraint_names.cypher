// Every constraint, by name (for `graphrag schema clean`).
// params: none
// returns: name
SHOW CONSTRAINTS YIELD name
RETURN name
ORDER BY name
