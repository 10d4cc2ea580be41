// Pleiades places not yet looked up on Wikidata (or all with $all), in id order after
// $after: an interrupted run resumes where it stopped, and a finished one is not repeated.
// params: $after, $limit, $all
// returns: id, pleiadesId
MATCH (p:Place)
WHERE p.pleiadesId IS NOT NULL AND p.pleiadesId > $after AND ($all OR p.wikidataCheckedAt IS NULL)
RETURN p.id AS id, p.pleiadesId AS pleiadesId
ORDER BY p.pleiadesId
LIMIT $limit
