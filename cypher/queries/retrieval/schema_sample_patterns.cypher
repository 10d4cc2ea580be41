// The live schema for text-to-Cypher: the label lists at both ends of the first $scan
// relationships, by type, and how many of the scanned relationships each pattern covers
// (exact, and complete when the counts add up to less than $scan).
// params: $scan
// returns: start, type, end, seen
MATCH (a)-[r]->(b)
WITH a, r, b
  LIMIT $scan
RETURN labels(a) AS start, type(r) AS type, labels(b) AS end, count(*) AS seen
