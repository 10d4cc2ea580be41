// Integrity: chunks without a document, MENTIONS that do not end at an entity or do not
// start at a chunk, SAME_AS that does not end at a Wikidata item with a QID.
// params: none
// returns: chunksWithoutDocument, mentionsWithoutTarget, mentionsWithoutChunk, sameAsWithoutTarget
CALL () { MATCH (c:Chunk) WHERE NOT EXISTS { (c)-[:FROM_DOCUMENT]->(:Document) } RETURN count(c) AS chunksWithoutDocument }
CALL () {
  MATCH ()-[m:MENTIONS]->(e) WHERE NOT e:__Entity__ OR e.id IS NULL RETURN count(m) AS mentionsWithoutTarget
}
CALL () { MATCH (s)-[m:MENTIONS]->() WHERE NOT s:Chunk RETURN count(m) AS mentionsWithoutChunk }
CALL () {
  MATCH (:Place)-[s:SAME_AS]->(w) WHERE NOT w:WikidataEntity OR w.qid IS NULL RETURN count(s) AS sameAsWithoutTarget
}
RETURN chunksWithoutDocument, mentionsWithoutTarget, mentionsWithoutChunk, sameAsWithoutTarget
