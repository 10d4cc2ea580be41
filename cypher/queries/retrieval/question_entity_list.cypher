// The shortlist of retrieval/question_entities.cypher (which graphrag.search runs) as one row:
// entities whose name, title, aliases or other names match words of the question (full-text,
// accent-folded by the index's analyzer; the caller keeps only names that occur in the question
// on word boundaries), best first, each name offered, the entity's own name first. One list in
// one record: the driver hands a hundred rows over in a fraction of the time.
// params: $query, $limit, $scope
// $scope: the corpora of the key asking (null: every corpus); an entity no chunk or document of
// them names is not found.
// returns: rows (a list of {id, name, names, type, labels, documentId, score}, best first)
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
ORDER BY score DESC
RETURN collect({
  id: e.id,
  name: coalesce(e.name, e.title),
  names: [n IN [e.name, e.title] + coalesce(e.aliases, []) + coalesce(e.names, []) WHERE n IS NOT NULL],
  type: coalesce(e.type, head([l IN labels(e) WHERE l <> '__Entity__'])),
  labels: labels(e),
  documentId: e.documentId,
  score: score
}) AS rows
