// Entities whose name, title or aliases match words of the question (full-text shortlist;
// the caller keeps only names that occur in the question on word boundaries).
// params: $query, $limit
// returns: id, name, names, labels, score
CALL db.index.fulltext.queryNodes('entity_names', $query, {limit: $limit}) YIELD node AS e, score
RETURN e.id AS id, coalesce(e.name, e.title) AS name,
       [n IN coalesce(e.aliases, []) + coalesce(e.names, []) + [e.title] WHERE n IS NOT NULL] AS names,
       labels(e) AS labels, score
ORDER BY score DESC
