// graphrag's own procedures and functions that this Neo4j has (the plugin jar in plugins/).
// params: none
// returns: procedures, functions
CALL () {
  SHOW PROCEDURES YIELD name WHERE name STARTS WITH 'graphrag.' RETURN collect(name) AS procedures
}
CALL () {
  SHOW FUNCTIONS YIELD name WHERE name STARTS WITH 'graphrag.' RETURN collect(name) AS functions
}
RETURN procedures, functions
