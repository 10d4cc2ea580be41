// The AUTHORED edges of documents as their metadata says: persons merged by id (one per
// normName across the graph), edges merged, edges to persons no longer named removed, and
// metadata persons left with no relationship at all deleted. Runs in the transaction that
// writes the documents.
// params: $docs ([{id, persons: [{id, name, normName}]}])
// returns: persons (document-person pairs named), created (edges), removed (stale edges)
UNWIND $docs AS doc
MATCH (d:Document {id: doc.id})
CALL (d, doc) {
  UNWIND doc.persons AS person
  MERGE (p:__Entity__ {id: person.id})
  ON CREATE SET p:Person, p.name = person.name, p.normName = person.normName, p.type = 'Person',
                p.scope = 'global', p.canonical = true, p.source = 'metadata'
  MERGE (p)-[r:AUTHORED]->(d)
  ON CREATE SET r.source = 'metadata', r.at = datetime(), r.new = true
  WITH p, r, r.new IS NOT NULL AS made
  REMOVE r.new
  RETURN count(DISTINCT p) AS persons, sum(CASE WHEN made THEN 1 ELSE 0 END) AS created
}
CALL (d, doc) {
  MATCH (stale:Person)-[r:AUTHORED {source: 'metadata'}]->(d)
  WHERE NOT stale.id IN [p IN doc.persons | p.id]
  DELETE r
  WITH stale, count(r) AS edges
  CALL (stale) {
    WITH stale WHERE stale.source = 'metadata' AND NOT EXISTS { (stale)--() }
    DELETE stale
  }
  RETURN sum(edges) AS removed
}
RETURN sum(persons) AS persons, sum(created) AS created, sum(removed) AS removed
