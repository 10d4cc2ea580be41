// The live schema for text-to-Cypher: every relationship type with each property key and its
// value types (`type` as Neo4j writes it, ":`KILLED_BY`"; a property-less type has a null key).
// params: none
// returns: type, property, types
CALL db.schema.relTypeProperties() YIELD relType, propertyName, propertyTypes
RETURN relType AS type, propertyName AS property, propertyTypes AS types
