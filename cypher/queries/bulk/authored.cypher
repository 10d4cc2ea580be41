// Every person named as an author, with its labels, properties and the documents it wrote.
// params: none
// returns: id, labels, properties, documents
MATCH (p:Person)
WHERE EXISTS { (p)-[:AUTHORED]->() }
RETURN p.id AS id, labels(p) AS labels, properties(p) AS properties,
       COLLECT { MATCH (p)-[:AUTHORED]->(d) RETURN d.id AS doc ORDER BY doc } AS documents
ORDER BY id
