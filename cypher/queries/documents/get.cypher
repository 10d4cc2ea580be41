// One document and its first chunks in order, text included (bounded by $maxChunks).
// params: $id, $maxChunks
// returns: id, title, uri, corpus, kind, topics, chunkCount, chunks
MATCH (d:Document {id: $id})
CALL (d) {
  MATCH (c:Chunk)-[:FROM_DOCUMENT]->(d)
  WITH c ORDER BY c.index
  RETURN count(c) AS chunkCount, collect({id: c.id, index: c.index, text: c.text})[0..$maxChunks] AS chunks
}
RETURN d.id AS id, d.title AS title, d.uri AS uri, d.corpus AS corpus, d.kind AS kind, d.topics AS topics,
       chunkCount, chunks
