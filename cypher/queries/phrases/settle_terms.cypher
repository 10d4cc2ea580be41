// Terms whose chunk count changed: a term no chunk has goes; one shared by 2..$maxChunks
// chunks is a :Phrase with HAS_PHRASE pairs, any other keeps HAS_TERM pairs (a term crossing
// either bound has its pairs re-typed, keeping their surface); one whose named chunk went
// takes the spelling of its lowest remaining chunk id.
// params: $limit, $maxChunks
// returns: terms, phrasesAdded, phrasesRemoved, created, removed
MATCH (t:StaleTerm)
WITH t LIMIT $limit
REMOVE t:StaleTerm
WITH t, t:Phrase AS was, 2 <= t.chunks <= $maxChunks AS phrase
CALL (t) {
  WITH t WHERE t.nameChunk IS NULL AND t.chunks > 0
  MATCH (c:Chunk)-[r:HAS_PHRASE|HAS_TERM]->(t)
  WITH t, c, r ORDER BY c.id LIMIT 1
  SET t.name = r.surface, t.nameChunk = c.id
}
CALL (t, phrase) {
  WITH t WHERE phrase
  SET t:Phrase
  WITH t
  MATCH (c:Chunk)-[r:HAS_TERM]->(t)
  CREATE (c)-[:HAS_PHRASE {surface: r.surface}]->(t)
  DELETE r
  RETURN count(*) AS created
}
CALL (t, phrase) {
  WITH t WHERE NOT phrase
  REMOVE t:Phrase
  WITH t
  MATCH (c:Chunk)-[r:HAS_PHRASE]->(t)
  CREATE (c)-[:HAS_TERM {surface: r.surface}]->(t)
  DELETE r
  RETURN count(*) AS removed
}
WITH t, was, phrase, created, removed
CALL (t) {
  WITH t WHERE t.chunks <= 0
  DETACH DELETE t
}
RETURN count(*) AS terms,
       sum(CASE WHEN phrase AND NOT was THEN 1 ELSE 0 END) AS phrasesAdded,
       sum(CASE WHEN was AND NOT phrase THEN 1 ELSE 0 END) AS phrasesRemoved,
       sum(created) AS created, sum(removed) AS removed
