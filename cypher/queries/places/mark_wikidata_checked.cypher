// Record that these places were looked up on Wikidata (found or not), once.
// params: $pleiadesIds
// returns: marked
UNWIND $pleiadesIds AS pid
MATCH (p:Place {pleiadesId: pid})
WHERE p.wikidataCheckedAt IS NULL
SET p.wikidataCheckedAt = datetime()
RETURN count(p) AS marked
