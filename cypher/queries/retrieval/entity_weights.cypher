// How much of the corpus each entity is: the chunks that MENTION it, in scope (a corpus, or all),
// for choosing among entities of one name (`ask --about`, a question's entities).
// params: $ids, $corpus
// returns: id, name, type, chunks
UNWIND $ids AS entityId
MATCH (e:__Entity__ {id: entityId})
CALL (e) {
  MATCH (c:Chunk)-[:MENTIONS]->(e)
  WHERE $corpus IS NULL OR EXISTS { (c)-[:FROM_DOCUMENT]->(d:Document) WHERE d.corpus = $corpus }
  RETURN count(DISTINCT c) AS chunks
}
RETURN e.id AS id, coalesce(e.name, e.title) AS name,
       coalesce(e.type, head([l IN labels(e) WHERE l <> '__Entity__'])) AS type, chunks
