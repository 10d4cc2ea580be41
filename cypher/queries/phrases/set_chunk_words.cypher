// Record on each chunk the words it writes in lower case (space-separated, for the counts a
// deletion gives back) and the capitalised words its clauses start with (-[:LEADS]->), and add
// $words (id, n: chunks that newly write it in lower case) to the vocabulary's counts. One
// transaction, so a chunk's words are counted exactly once. A full run passes no $words: it
// sets the counts afterwards.
// params: $rows (id, lower, leads), $words (id, n)
// returns: chunks, words
CALL () {
  UNWIND $rows AS row
  MATCH (c:Chunk {id: row.id})
  SET c.lowerWords = row.lower
  WITH c, row
  CALL (c, row) {
    MATCH (c)-[r:LEADS]->(w:Word)
    WHERE NOT w.id IN row.leads
    DELETE r
  }
  CALL (c, row) {
    UNWIND row.leads AS lead
    MERGE (w:Word {id: lead})
    ON CREATE SET w.lower = 0, w.known = false
    MERGE (c)-[:LEADS]->(w)
  }
  RETURN count(c) AS chunks
}
CALL () {
  UNWIND $words AS word
  MERGE (w:Word {id: word.id})
  ON CREATE SET w.lower = 0, w.known = false
  SET w.lower = w.lower + word.n, w:StaleWord
  RETURN count(w) AS words
}
RETURN chunks, words
