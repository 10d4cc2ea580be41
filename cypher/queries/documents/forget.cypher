// Forget one document completely: its chunks (and with them their MENTIONS and NEXT links;
// phrases/release_documents has given their phrase counts back first, in the same transaction:
// `phrases` counts the phrases now joining fewer than two chunks, which the next phrase run
// un-links), and entities left with no source (no
// chunk mentions them, no document describes them, no chunk is theirs). Gazetteer places
// (they carry their own contentHash) are sources of their own and stay. An entity document
// (`graphrag entity-docs`) is no source: its chunks keep no entity alive, and forgetting one
// removes no entity (the next entity-docs run writes it again, or drops it with its entity).
// The relations between entities it describes whose source it is (`documentId`: an infobox's
// edges, a records file's relations) go with it, whatever becomes of their ends.
// A person who authored another document stays (authors/release_documents has dropped this
// document's AUTHORED edges, and the persons they left with nothing, first).
// params: $id
// returns: documents, chunks, phrases, relations, entities
MATCH (d:Document {id: $id})
CALL (d) {
  OPTIONAL MATCH (c:Chunk)-[:FROM_DOCUMENT]->(d)
  RETURN collect(c) AS chunks
}
CALL () {
  MATCH (p:Phrase:StaleTerm)
  WHERE p.chunks < 2
  RETURN count(p) AS phrasesRemoved
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
CALL (d, described) {
  UNWIND described AS e
  MATCH (e)-[r]-(:__Entity__)
  WHERE r.documentId = d.id
  WITH DISTINCT r
  DELETE r
  RETURN count(r) AS relationsRemoved
}
WITH d, chunks, phrasesRemoved, relationsRemoved,
     [e IN mentioned + described WHERE e.contentHash IS NULL AND NOT d:EntityDocument] AS candidates
FOREACH (c IN chunks | DETACH DELETE c)
DETACH DELETE d
WITH size(chunks) AS chunkCount, phrasesRemoved, relationsRemoved, candidates
CALL (candidates) {
  UNWIND candidates AS e
  WITH DISTINCT e
  WHERE NOT EXISTS { (c:Chunk)-[:MENTIONS]->(e) WHERE NOT EXISTS { (c)-[:FROM_DOCUMENT]->(:EntityDocument) } } AND NOT EXISTS { (:Document)-[:DESCRIBES]->(e) }
    AND NOT EXISTS { (e)-[:FROM_CHUNK]->(:Chunk) } AND NOT EXISTS { (e)-[:AUTHORED]->(:Document) }
  DETACH DELETE e
  RETURN count(e) AS entitiesRemoved
}
RETURN 1 AS documents, chunkCount AS chunks, phrasesRemoved AS phrases, relationsRemoved AS relations,
       entitiesRemoved AS entities
