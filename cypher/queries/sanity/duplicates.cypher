// Duplicates: chunk-entity pairs with more than one MENTIONS (an integrity violation: the
// linkers keep one edge per pair), and names shared by several places (ambiguity, not an
// error) with the most shared ones as examples.
// params: $examples
// returns: duplicateMentions, sharedNames, sharedNameExamples
CALL () {
  MATCH (c:Chunk)-[m:MENTIONS]->(e)
  WITH c, e, count(m) AS n WHERE n > 1
  RETURN count(*) AS duplicateMentions
}
CALL () {
  MATCH (p:Place) WHERE p.normName IS NOT NULL
  WITH p.normName AS name, count(p) AS n WHERE n > 1
  WITH name, n ORDER BY n DESC, name
  RETURN count(name) AS sharedNames, collect({name: name, places: n}) AS shared
}
RETURN duplicateMentions, sharedNames, shared[0..$examples] AS sharedNameExamples
