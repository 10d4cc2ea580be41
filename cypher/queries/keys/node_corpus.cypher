// The corpus of a document, or of a chunk's document, by id (what the door checks a scoped key
// against); no row when the id is neither (an entity, a community, unknown).
// params: $id
// returns: found, corpus
OPTIONAL MATCH (d:Document {id: $id})
OPTIONAL MATCH (:Chunk {id: $id})-[:FROM_DOCUMENT]->(cd:Document)
WITH coalesce(d, cd) AS doc
WHERE doc IS NOT NULL
RETURN true AS found, doc.corpus AS corpus
LIMIT 1
