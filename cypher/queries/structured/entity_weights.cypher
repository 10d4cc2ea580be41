// How much of the scope each candidate entity is about: the chunks (of the corpus, when one is
// given) that link to it, and its typed relations. Chooses among entities that share a name.
// params: $ids, $corpus
// returns: id, name, type, labels, chunks, relations, canonical (the entity it is an INSTANCE_OF, else itself)
UNWIND $ids AS xid
MATCH (e:__Entity__ {id: xid})
CALL (e) {
  OPTIONAL MATCH (c:Chunk)-[:MENTIONS]->(e)
  WHERE $corpus IS NULL OR EXISTS { (c)-[:FROM_DOCUMENT]->(:Document {corpus: $corpus}) }
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
