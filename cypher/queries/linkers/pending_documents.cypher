// The documents of $corpus (all when null) with a chunk loaded or changed since the last entity run.
// params: $corpus
// returns: ids
MATCH (c:PendingEntities)-[:FROM_DOCUMENT]->(d:Document)
WHERE $corpus IS NULL OR d.corpus = $corpus
RETURN collect(DISTINCT d.id) AS ids
