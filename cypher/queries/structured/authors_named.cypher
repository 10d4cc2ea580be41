// Persons who authored a document and are named like the question's author: the same
// normName, or the same surname (the last word of normName), for the caller to choose from.
// params: $normName, $surname
// returns: id, name, normName, documents
MATCH (p:Person)-[:AUTHORED]->(d:Document)
WHERE p.normName = $normName OR last(split(p.normName, ' ')) = $surname
RETURN p.id AS id, p.name AS name, p.normName AS normName, count(DISTINCT d) AS documents
ORDER BY id
