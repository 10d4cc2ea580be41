// Existing chunk vectors of the given documents by chunk content hash, so a changed
// document re-embeds only the chunks whose text changed.
// params: $ids, $model
// returns: contentHash, embedding
UNWIND $ids AS id
MATCH (c:Chunk)-[:FROM_DOCUMENT]->(:Document {id: id})
WHERE c.embeddingModel = $model AND c.embedding IS NOT NULL
RETURN DISTINCT c.contentHash AS contentHash, c.embedding AS embedding
