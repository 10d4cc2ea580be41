// Worked examples for the text-to-Cypher prompt (retrieval/structured/text2cypher.py), on a made-up
// schema: (:Person {id, name})-[:WORKS_FOR {since}]->(:Company {id, name}),
// (:Person)-[:KNOWS]->(:Person), (:Document {id, title})-[:MENTIONS]->(:Person).
// Each example is a `// Q:` line with a question, then its statement; a blank line ends it.

// Q: Who works for Acme?
MATCH (p:Person)-[:WORKS_FOR]->(c:Company)
WHERE toLower(c.name) = toLower('Acme')
RETURN p.id AS id, p.name AS name
LIMIT 50

// Q: How many people does each company employ?
MATCH (p:Person)-[:WORKS_FOR]->(c:Company)
RETURN c.id AS id, c.name AS name, count(p) AS employees
ORDER BY employees DESC
LIMIT 50

// Q: How is Ada Lovelace connected to Charles Babbage?
MATCH (a:Person), (b:Person)
WHERE toLower(a.name) = toLower('Ada Lovelace') AND toLower(b.name) = toLower('Charles Babbage')
MATCH path = shortestPath((a)-[*..4]-(b))
RETURN path
LIMIT 1

// Q: Which documents mention someone who knows Grace Hopper?
MATCH (g:Person)-[:KNOWS]-(p:Person)<-[:MENTIONS]-(d:Document)
WHERE toLower(g.name) CONTAINS toLower('Grace Hopper')
RETURN DISTINCT d.id AS id, d.title AS title, p.name AS person
LIMIT 50
