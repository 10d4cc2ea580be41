// Chunks of freshly upserted documents, linked to their document and to each other in order,
// each :PendingPhrases / :PendingTitles / :PendingEntities until that linker has read it;
// vectors are written with db.create.setNodeVectorProperty (stored as a float array).
// params: $docs
// returns: chunks
UNWIND $docs AS doc
MATCH (d:Document {id: doc.id})
CALL (d, doc) {
  UNWIND doc.chunks AS ch
  CREATE (c:Chunk:PendingPhrases:PendingTitles:PendingEntities {id: ch.id})
  SET c += ch.props
  CREATE (c)-[:FROM_DOCUMENT]->(d)
  RETURN collect(c) AS chunks
}
CALL (chunks) {
  UNWIND range(0, size(chunks) - 2) AS i
  WITH chunks[i] AS a, chunks[i + 1] AS b
  CREATE (a)-[:NEXT_CHUNK]->(b)
}
CALL (chunks, doc) {
  UNWIND range(0, size(chunks) - 1) AS i
  WITH chunks[i] AS c, doc.chunks[i].embedding AS vector
  WHERE vector IS NOT NULL
  CALL db.create.setNodeVectorProperty(c, 'embedding', vector)
}
RETURN sum(size(chunks)) AS chunks
