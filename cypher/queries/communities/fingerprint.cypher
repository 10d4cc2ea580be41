// What a community build reads, counted cheaply: nodes per label and relationships per type
// from the count store, and the chunks that have an embedding (KNN joins those).
// params: none
// returns: labels, relationships, embedded
CALL apoc.meta.stats() YIELD labels, relTypesCount
RETURN labels, relTypesCount AS relationships, COUNT { MATCH (c:Chunk) WHERE c.embedding IS NOT NULL } AS embedded
