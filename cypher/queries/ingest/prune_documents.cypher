// Delete the documents prunable_documents found (still from this source root and corpus),
// with their chunks; phrases/release_documents runs first in the same transaction.
// params: $ids, $sourceRoot, $corpus
// returns: documents, chunks
UNWIND $ids AS id
MATCH (d:Document {id: id, sourceRoot: $sourceRoot})
WHERE coalesce(d.corpus, '') = coalesce($corpus, '')
OPTIONAL MATCH (c:Chunk)-[:FROM_DOCUMENT]->(d)
WITH d, collect(c) AS chunks
FOREACH (c IN chunks | DETACH DELETE c)
DETACH DELETE d
RETURN count(d) AS documents, sum(size(chunks)) AS chunks
