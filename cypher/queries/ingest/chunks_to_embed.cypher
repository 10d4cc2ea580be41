// A page of chunks without a vector or embedded by another model.
// params: $model, $limit
// returns: id, title, text
MATCH (c:Chunk)
WHERE c.embedding IS NULL OR coalesce(c.embeddingModel, '') <> $model
RETURN c.id AS id, c.title AS title, c.text AS text
ORDER BY c.id
LIMIT $limit
