// Entities whose name, title, aliases or other names match words of the question (full-text
// shortlist, accent-folded by the index's analyzer; the caller keeps only names that occur in
// the question on word boundaries). Every name is offered, the entity's own name first.
// params: $query, $limit, $scope
// $scope: the corpora of the key asking (null: every corpus); an entity no chunk or document of
// them names is not found.
// returns: id, name, names, type, labels, documentId, score
CALL db.index.fulltext.queryNodes('entity_names', $query, {limit: CASE WHEN $scope IS NULL THEN $limit ELSE $limit * 5 END})
YIELD node AS e, score
WITH e, score
WHERE ($scope IS NULL
   OR EXISTS { (e)<-[:MENTIONS]-(:Chunk)-[:FROM_DOCUMENT]->(sd:Document) WHERE sd.corpus IN $scope }
   OR EXISTS { (e)-[:FROM_CHUNK]->(:Chunk)-[:FROM_DOCUMENT]->(sd:Document) WHERE sd.corpus IN $scope }
   OR EXISTS { (e)<-[:DESCRIBES]-(sd:Document) WHERE sd.corpus IN $scope }
   OR EXISTS { MATCH (sd:Document) WHERE sd.id = e.documentId AND sd.corpus IN $scope }
   OR EXISTS { (e)<-[:INSTANCE_OF]-(:__Entity__)<-[:MENTIONS]-(:Chunk)-[:FROM_DOCUMENT]->(sd:Document) WHERE sd.corpus IN $scope })
WITH e, score LIMIT $limit
RETURN e.id AS id, coalesce(e.name, e.title) AS name,
       [n IN [e.name, e.title] + coalesce(e.aliases, []) + coalesce(e.names, []) WHERE n IS NOT NULL] AS names,
       coalesce(e.type, head([l IN labels(e) WHERE l <> '__Entity__'])) AS type,
       labels(e) AS labels, e.documentId AS documentId, score
ORDER BY score DESC
