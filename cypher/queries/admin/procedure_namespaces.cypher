// Which functions of the optional plugins are visible, to tell "not installed" from "failed".
// params: none
// returns: name
SHOW FUNCTIONS YIELD name
WHERE name IN ['apoc.version', 'gds.version']
RETURN name
