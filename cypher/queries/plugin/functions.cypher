// graphrag's own functions that this Neo4j has (the plugin jar in plugins/).
// params: none
// returns: names
SHOW FUNCTIONS YIELD name
WHERE name STARTS WITH 'graphrag.'
RETURN collect(name) AS names
