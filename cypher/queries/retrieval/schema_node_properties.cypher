// The live schema for text-to-Cypher: every combination of node labels with each property key
// and its value types, as Neo4j summarises them (a property-less combination comes with a null key).
// params: none
// returns: labels, property, types
CALL db.schema.nodeTypeProperties() YIELD nodeLabels, propertyName, propertyTypes
RETURN nodeLabels AS labels, propertyName AS property, propertyTypes AS types
