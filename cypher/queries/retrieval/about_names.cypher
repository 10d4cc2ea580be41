// The entities that may bear a name (`ask --about`): those whose normName is one of $normNames
// (an index lookup) and the full-text index's shortlist for $query (the name as a phrase, over
// names, titles and aliases). The caller keeps those one of whose names equals the name, folded.
// params: $normNames, $query, $limit
// returns: id, name, names
CALL () {
  UNWIND $normNames AS normName
  MATCH (e:__Entity__ {normName: normName})
  RETURN e
  UNION
  WITH $query AS query WHERE query <> ''
  CALL db.index.fulltext.queryNodes('entity_names', query, {limit: $limit}) YIELD node AS e
  RETURN e
}
RETURN e.id AS id, coalesce(e.name, e.title) AS name,
       [n IN [e.name, e.title] + coalesce(e.aliases, []) + coalesce(e.names, []) WHERE n IS :: STRING] AS names
