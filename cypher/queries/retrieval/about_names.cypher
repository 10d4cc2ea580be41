// The entities that may bear a name (`ask --about`): those whose normName is one of $normNames
// (an index lookup) and the full-text index's shortlist for $query (the name as a phrase, over
// names, titles and aliases). The caller keeps those one of whose names equals the name, folded.
// params: $normNames, $query, $limit, $scope
// $scope: the corpora of the key asking (null: every corpus); an entity no chunk or document of
// them names is not found.
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
WITH e WHERE ($scope IS NULL
  OR EXISTS { (e)<-[:MENTIONS]-(:Chunk)-[:FROM_DOCUMENT]->(sd:Document) WHERE sd.corpus IN $scope }
  OR EXISTS { (e)-[:FROM_CHUNK]->(:Chunk)-[:FROM_DOCUMENT]->(sd:Document) WHERE sd.corpus IN $scope }
  OR EXISTS { (e)<-[:DESCRIBES]-(sd:Document) WHERE sd.corpus IN $scope }
  OR EXISTS { MATCH (sd:Document) WHERE sd.id = e.documentId AND sd.corpus IN $scope }
  OR EXISTS { (e)<-[:INSTANCE_OF]-(:__Entity__)<-[:MENTIONS]-(:Chunk)-[:FROM_DOCUMENT]->(sd:Document) WHERE sd.corpus IN $scope })
RETURN e.id AS id, coalesce(e.name, e.title) AS name,
       [n IN [e.name, e.title] + coalesce(e.aliases, []) + coalesce(e.names, []) WHERE n IS :: STRING] AS names
