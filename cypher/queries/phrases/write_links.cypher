// A full run's pairs: drop the chunk's pairs it no longer makes (or makes differently), create
// the new ones as HAS_PHRASE (`link`: the term is a :Phrase) or HAS_TERM, and take the chunks
// out of :PendingPhrases. Counts are not touched: a full run writes them on the terms.
// params: $rows (chunkId, add: [{id, surface, link}], remove: [id])
// returns: chunks, created, removed
UNWIND $rows AS row
MATCH (c:Chunk {id: row.chunkId})
CALL (c, row) {
  UNWIND row.remove AS id
  MATCH (c)-[r:HAS_PHRASE|HAS_TERM]->(:Term {id: id})
  WITH r, type(r) = 'HAS_PHRASE' AS link
  DELETE r
  RETURN sum(CASE WHEN link THEN 1 ELSE 0 END) AS removed
}
CALL (c, row) {
  UNWIND row.add AS a
  MATCH (t:Term {id: a.id})
  CALL (c, t, a) {
    WITH * WHERE a.link
    CREATE (c)-[:HAS_PHRASE {surface: a.surface}]->(t)
  }
  CALL (c, t, a) {
    WITH * WHERE NOT a.link
    CREATE (c)-[:HAS_TERM {surface: a.surface}]->(t)
  }
  RETURN sum(CASE WHEN a.link THEN 1 ELSE 0 END) AS created
}
REMOVE c:PendingPhrases
RETURN count(c) AS chunks, sum(created) AS created, sum(removed) AS removed
