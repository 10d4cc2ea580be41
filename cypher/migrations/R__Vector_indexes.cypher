// Vector index on chunk embeddings, sized for the configured embedder.
// Repeatable: re-applied when the resolved text changes (e.g. another embedder with other
// dimensions), so the index is dropped and created again with the new size.
DROP INDEX chunk_embedding IF EXISTS;

CREATE VECTOR INDEX chunk_embedding IF NOT EXISTS
FOR (c:Chunk) ON (c.embedding)
OPTIONS {indexConfig: {`vector.dimensions`: {{embedding_dimensions}}, `vector.similarity_function`: 'cosine'}};
