// Every shared phrase with the chunks that have it (`graphrag link phrases`), for the offline replay.
// params: none
// returns: key, phrase, chunks, members
MATCH (p:Phrase)<-[:HAS_PHRASE]-(c:Chunk)
RETURN elementId(p) AS key, p.name AS phrase, p.chunks AS chunks, collect(c.id) AS members
