// Create or update documents and drop their old chunks (with every relationship of those
// chunks); runs in the same transaction as create_chunks, so a document is never half-written.
// params: $docs
// returns: id, created, deleted
UNWIND $docs AS doc
MERGE (d:Document {id: doc.id})
ON CREATE SET d.createdAt = datetime()
WITH d, doc, d.contentHash IS NULL AS created
SET d += doc.props, d.updatedAt = datetime()
SET d:$(doc.labels)
WITH d, doc, created
OPTIONAL MATCH (old:Chunk)-[:FROM_DOCUMENT]->(d)
DETACH DELETE old
RETURN doc.id AS id, created, count(old) AS deleted
