// Forget what one LLM extractor wrote: its entities (their relations go with them) and the
// checkpoints of the documents it read, so the same documents can be extracted again from
// scratch (the bench and the tests compare two runs this way).
// params: $source
// returns: documents
CALL (){
  MATCH (e:__Entity__ {source: $source})
  DETACH DELETE e
}
MATCH (d:Document)
WHERE d.extractedBy STARTS WITH $source + ' '
REMOVE d.extractionChecksum, d.extractedBy, d.extractedAt
RETURN count(d) AS documents
