// A full run's words of chunks that had none stored: their lower-case words and the words their
// clauses start with (the :Word nodes exist already).
// params: $rows (id, lower), $leads (c: chunk id, w: word id)
// returns: chunks
CALL () {
  UNWIND $rows AS row
  MATCH (c:Chunk {id: row.id})
  SET c.lowerWords = row.lower
  RETURN count(c) AS chunks
}
CALL () {
  UNWIND $leads AS lead
  MATCH (c:Chunk {id: lead.c})
  MATCH (w:Word {id: lead.w})
  CREATE (c)-[:LEADS]->(w)
}
RETURN chunks
