// Documents loaded earlier from the same source root and corpus whose item is gone.
// params: $sourceRoot, $corpus, $keep
// returns: id
MATCH (d:Document {sourceRoot: $sourceRoot})
WHERE coalesce(d.corpus, '') = coalesce($corpus, '') AND NOT d.id IN $keep
RETURN d.id AS id
