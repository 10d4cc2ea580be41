// Documents loaded earlier from the same source root and corpus whose item is gone.
// params: $sourceRoot, $corpus, $keep
// returns: documents, chunks
MATCH (d:Document {sourceRoot: $sourceRoot})
WHERE coalesce(d.corpus, '') = coalesce($corpus, '') AND NOT d.id IN $keep
OPTIONAL MATCH (c:Chunk)-[:FROM_DOCUMENT]->(d)
WITH d, collect(c) AS chunks
FOREACH (c IN chunks | DETACH DELETE c)
DETACH DELETE d
RETURN count(d) AS documents, sum(size(chunks)) AS chunks
