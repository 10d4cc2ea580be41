// Remove the given entity documents and their chunks (with every relationship of both).
// params: $ids
// returns: documents, chunks
UNWIND $ids AS id
MATCH (d:EntityDocument {id: id})
OPTIONAL MATCH (c:Chunk)-[:FROM_DOCUMENT]->(d)
WITH d, collect(c) AS chunks
FOREACH (c IN chunks | DETACH DELETE c)
DETACH DELETE d
RETURN count(d) AS documents, sum(size(chunks)) AS chunks
