// Entities whose name, title, aliases or other names match words of the question (full-text
// shortlist, accent-folded by the index's analyzer; the caller keeps only names that occur in
// the question on word boundaries). Every name is offered, the entity's own name first.
// params: $query, $limit
// returns: id, name, names, type, labels, documentId, score
CALL db.index.fulltext.queryNodes('entity_names', $query, {limit: $limit}) YIELD node AS e, score
RETURN e.id AS id, coalesce(e.name, e.title) AS name,
       [n IN [e.name, e.title] + coalesce(e.aliases, []) + coalesce(e.names, []) WHERE n IS NOT NULL] AS names,
       coalesce(e.type, head([l IN labels(e) WHERE l <> '__Entity__'])) AS type,
       labels(e) AS labels, e.documentId AS documentId, score
ORDER BY score DESC
