// Stored vectors of chunks with the given content hashes (text and title), so a changed
// document re-embeds only the chunks whose text changed and a re-keyed one embeds nothing.
// params: $hashes, $model
// returns: contentHash, embedding
UNWIND $hashes AS hash
CALL (hash) {
  MATCH (c:Chunk {contentHash: hash})
  WHERE c.embeddingModel = $model AND c.embedding IS NOT NULL
  RETURN c.embedding AS embedding
  LIMIT 1
}
RETURN hash AS contentHash, embedding
