// Vector indexes on chunk and community embeddings, sized for the configured embedder.
// Repeatable: re-applied when the resolved text changes (e.g. another embedder with other
// dimensions), so the indexes are dropped and created again with the new size.
DROP INDEX chunk_embedding IF EXISTS;

CREATE VECTOR INDEX chunk_embedding IF NOT EXISTS
FOR (c:Chunk) ON (c.embedding)
OPTIONS {indexConfig: {`vector.dimensions`: {{embedding_dimensions}}, `vector.similarity_function`: 'cosine'}};

// A community's embedding is the normalised centroid of its member chunks' embeddings, so a
// question finds the communities it is about (global search).
DROP INDEX community_embedding IF EXISTS;

CREATE VECTOR INDEX community_embedding IF NOT EXISTS
FOR (c:Community) ON (c.embedding)
OPTIONS {indexConfig: {`vector.dimensions`: {{embedding_dimensions}}, `vector.similarity_function`: 'cosine'}};
