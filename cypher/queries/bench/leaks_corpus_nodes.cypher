// The documents of a corpus with their chunks' ids (bench/leaks.py: ids and titles that must not
// reach a key of another corpus).
// params: $corpus
// returns: id, title, chunks
MATCH (d:Document {corpus: $corpus})
OPTIONAL MATCH (c:Chunk)-[:FROM_DOCUMENT]->(d)
RETURN d.id AS id, d.title AS title, collect(c.id) AS chunks
