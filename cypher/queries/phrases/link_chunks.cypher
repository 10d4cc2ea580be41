// Bring pending chunks' terms to what a run found, keeping each term's chunk count in step:
// a pair gained adds one (a new term starts at 0), a pair lost takes one away, and every term
// touched is left :StaleTerm for settle_terms to re-decide (its label, its links' type, its
// name). A new pair is HAS_PHRASE when its term is a :Phrase now, else HAS_TERM; a term's
// name is the spelling of its lowest chunk id. The chunks leave :PendingPhrases.
// params: $rows (chunkId, add: [{id, surface}], remove: [id], surface: [{id, surface}])
// returns: chunks, created, removed
UNWIND $rows AS row
MATCH (c:Chunk {id: row.chunkId})
CALL (c, row) {
  UNWIND row.remove AS id
  MATCH (c)-[r:HAS_PHRASE|HAS_TERM]->(t:Term {id: id})
  WITH t, r, type(r) = 'HAS_PHRASE' AS link, c
  DELETE r
  SET t.chunks = t.chunks - 1, t:StaleTerm,
      t.nameChunk = CASE WHEN t.nameChunk = c.id THEN null ELSE t.nameChunk END
  RETURN sum(CASE WHEN link THEN 1 ELSE 0 END) AS removed
}
CALL (c, row) {
  UNWIND row.surface AS s
  MATCH (c)-[r:HAS_PHRASE|HAS_TERM]->(t:Term {id: s.id})
  SET r.surface = s.surface, t:StaleTerm,
      t.name = CASE WHEN t.nameChunk = c.id THEN s.surface ELSE t.name END
}
CALL (c, row) {
  UNWIND row.add AS a
  MERGE (t:Term {id: a.id})
  ON CREATE SET t.chunks = 0, t.name = a.surface, t.nameChunk = c.id
  SET t.chunks = t.chunks + 1, t:StaleTerm
  SET t.name = CASE WHEN t.nameChunk IS NOT NULL AND c.id < t.nameChunk THEN a.surface ELSE t.name END,
      t.nameChunk = CASE WHEN t.nameChunk IS NOT NULL AND c.id < t.nameChunk THEN c.id ELSE t.nameChunk END
  WITH t, a, t:Phrase AS phrase
  CALL (c, t, a, phrase) {
    WITH * WHERE phrase
    CREATE (c)-[:HAS_PHRASE {surface: a.surface}]->(t)
  }
  CALL (c, t, a, phrase) {
    WITH * WHERE NOT phrase
    CREATE (c)-[:HAS_TERM {surface: a.surface}]->(t)
  }
  RETURN sum(CASE WHEN phrase THEN 1 ELSE 0 END) AS created
}
REMOVE c:PendingPhrases
RETURN count(c) AS chunks, sum(created) AS created, sum(removed) AS removed
