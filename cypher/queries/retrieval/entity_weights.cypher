// How much of the corpus each entity is: the chunks that MENTION it, in scope (a corpus, or all),
// and its typed relations, for choosing among entities of one name (`ask --about`, a question's
// entities, a lookup's entity); `canonical` is the entity it is an INSTANCE_OF, else itself.
// params: $ids, $corpus, $scope
// returns: id, name, type, labels, chunks, relations, canonical
UNWIND $ids AS entityId
MATCH (e:__Entity__ {id: entityId})
CALL (e) {
  MATCH (c:Chunk)-[:MENTIONS]->(e)
  WHERE ($corpus IS NULL OR EXISTS { (c)-[:FROM_DOCUMENT]->(d:Document) WHERE d.corpus = $corpus })
    AND ($scope IS NULL OR EXISTS { (c)-[:FROM_DOCUMENT]->(d:Document) WHERE d.corpus IN $scope })
  RETURN count(DISTINCT c) AS chunks
}
CALL (e) {
  OPTIONAL MATCH (e)-[r]-(:__Entity__) WHERE NOT type(r) IN ['INSTANCE_OF', 'SAME_AS', 'CO_OCCURS']
  RETURN count(r) AS relations
}
RETURN e.id AS id, coalesce(e.name, e.title) AS name,
       coalesce(e.type, head([l IN labels(e) WHERE l <> '__Entity__'])) AS type,
       [l IN labels(e) WHERE l <> '__Entity__'] AS labels, chunks, relations,
       coalesce(head([(e)-[:INSTANCE_OF]->(c:__Entity__) | c.id]), e.id) AS canonical
