// The entity pairs chunks $chunkIds count towards CO_OCCURS (as linkers/merge_co_occurs: each
// chunk's first $maxPerChunk entities by id), lower id first.
// params: $chunkIds, $maxPerChunk
// returns: pairs
UNWIND $chunkIds AS id
MATCH (c:Chunk {id: id})
CALL (c) {
  MATCH (c)-[:MENTIONS]->(e:__Entity__)
  WITH DISTINCT e ORDER BY e.id LIMIT $maxPerChunk
  RETURN collect(e.id) AS ids
}
WITH ids WHERE size(ids) > 1
UNWIND range(0, size(ids) - 2) AS i
UNWIND range(i + 1, size(ids) - 1) AS j
RETURN collect(DISTINCT [ids[i], ids[j]]) AS pairs
