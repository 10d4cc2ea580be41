// Store vectors on chunks.
// params: $rows, $model
// returns: updated
UNWIND $rows AS row
MATCH (c:Chunk {id: row.id})
CALL db.create.setNodeVectorProperty(c, 'embedding', row.embedding)
SET c.embeddingModel = $model
RETURN count(c) AS updated
