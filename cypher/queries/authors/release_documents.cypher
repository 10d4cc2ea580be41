// Before documents are deleted (forget, --prune): their AUTHORED edges, and the metadata
// persons left with no relationship at all.
// params: $ids
// returns: edges, persons
UNWIND $ids AS id
MATCH (p:Person)-[r:AUTHORED]->(:Document {id: id})
DELETE r
WITH count(r) AS edges, collect(DISTINCT p) AS persons
CALL (persons) {
  UNWIND persons AS p
  WITH p WHERE p.source = 'metadata' AND NOT EXISTS { (p)--() }
  DELETE p
  RETURN count(p) AS removed
}
RETURN edges, removed AS persons
