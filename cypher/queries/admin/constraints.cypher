// Every constraint.
// params: none
// returns: name, type, entityType, labelsOrTypes, properties
SHOW CONSTRAINTS
YIELD name, type, entityType, labelsOrTypes, properties
RETURN name, type, entityType, labelsOrTypes, properties
ORDER BY name
