// Wikidata items matched by Pleiades id (P1584): one :WikidataEntity per QID and a
// SAME_AS edge from the place; MERGE keeps a second run from creating anything.
// params: $rows
// returns: entities_created, links_created
UNWIND $rows AS row
MATCH (p:Place {pleiadesId: row.pleiadesId})
CALL (row) {
  OPTIONAL MATCH (old:WikidataEntity {qid: row.qid})
  RETURN old IS NULL AS entityCreated
}
MERGE (w:WikidataEntity {qid: row.qid})
ON CREATE SET w.createdAt = datetime()
SET w.uri = row.uri, w.label = row.label, w.instanceOf = row.instanceOf, w.lat = row.lat, w.lon = row.lon
WITH p, w, entityCreated
CALL (p, w) {
  OPTIONAL MATCH (p)-[old:SAME_AS {property: 'P1584'}]->(w)
  RETURN count(old) = 0 AS linkCreated
}
MERGE (p)-[s:SAME_AS {property: 'P1584'}]->(w)
ON CREATE SET s.source = 'wikidata', s.matchedBy = 'pleiadesId', s.at = datetime()
RETURN sum(CASE WHEN entityCreated THEN 1 ELSE 0 END) AS entities_created,
       sum(CASE WHEN linkCreated THEN 1 ELSE 0 END) AS links_created
