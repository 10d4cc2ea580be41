// Forget one document completely: its chunks (and with them their MENTIONS, HAS_PHRASE and
// NEXT links), phrases that no longer join two chunks, and entities left with no source (no
// chunk mentions them, no document describes them, no chunk is theirs). Gazetteer places
// (they carry their own contentHash) are sources of their own and stay. An entity document
// (`graphrag entity-docs`) is no source: its chunks keep no entity alive, and forgetting one
// removes no entity (the next entity-docs run writes it again, or drops it with its entity).
// params: $id
// returns: documents, chunks, phrases, entities
MATCH (d:Document {id: $id})
CALL (d) {
  OPTIONAL MATCH (c:Chunk)-[:FROM_DOCUMENT]->(d)
  RETURN collect(c) AS chunks
}
CALL (chunks) {
  UNWIND chunks AS c
  MATCH (c)-[:HAS_PHRASE]->(p:Phrase)
  RETURN collect(DISTINCT p) AS phrases
}
CALL (d, chunks) {
  UNWIND chunks AS c
  MATCH (c)-[:MENTIONS]->(e:__Entity__)
  RETURN collect(DISTINCT e) AS mentioned
}
CALL (d) {
  OPTIONAL MATCH (d)-[:DESCRIBES]->(e:__Entity__)
  RETURN collect(DISTINCT e) AS described
}
WITH d, chunks, phrases,
     [e IN mentioned + described WHERE e.contentHash IS NULL AND NOT d:EntityDocument] AS candidates
FOREACH (c IN chunks | DETACH DELETE c)
DETACH DELETE d
WITH size(chunks) AS chunkCount, phrases, candidates
CALL (phrases) {
  UNWIND phrases AS p
  WITH p WHERE COUNT { (p)<-[:HAS_PHRASE]-(:Chunk) } < 2
  DETACH DELETE p
  RETURN count(p) AS phrasesRemoved
}
CALL (candidates) {
  UNWIND candidates AS e
  WITH DISTINCT e
  WHERE NOT EXISTS { (c:Chunk)-[:MENTIONS]->(e) WHERE NOT EXISTS { (c)-[:FROM_DOCUMENT]->(:EntityDocument) } } AND NOT EXISTS { (:Document)-[:DESCRIBES]->(e) }
    AND NOT EXISTS { (e)-[:FROM_CHUNK]->(:Chunk) }
  DETACH DELETE e
  RETURN count(e) AS entitiesRemoved
}
RETURN 1 AS documents, chunkCount AS chunks, phrasesRemoved AS phrases, entitiesRemoved AS entities
