// Nodes per label and relationships per type, from the count store.
// params: none
// returns: labels, relationships
CALL apoc.meta.stats() YIELD labels, relTypesCount
RETURN labels, relTypesCount AS relationships
