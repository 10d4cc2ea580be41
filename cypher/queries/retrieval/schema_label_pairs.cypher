// The live schema for text-to-Cypher: (start label, type, end label) from the count store,
// cheap on any graph but approximate (every start label of a type is paired with every end
// label). Virtual nodes (property `name`: the label) and relationships between them; the nodes
// come first, so that the driver gives each relationship's ends with their names.
// params: none
// returns: nodes, relationships
CALL db.schema.visualization() YIELD nodes, relationships
RETURN nodes, relationships
