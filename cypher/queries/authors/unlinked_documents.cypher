// Documents with an `authors` list and no AUTHORED edge (loaded before authors were people),
// in id order after $after: what the backfill links.
// params: $after, $limit
// returns: id, authors
MATCH (d:Document)
WHERE d.authors IS NOT NULL AND d.id > $after AND NOT EXISTS { (:Person)-[:AUTHORED]->(d) }
RETURN d.id AS id, d.authors AS authors
ORDER BY d.id
LIMIT $limit
