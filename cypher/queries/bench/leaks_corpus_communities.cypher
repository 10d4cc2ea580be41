// Communities with members of a corpus (bench/leaks.py: ids and titles that must not reach a key
// of another corpus).
// params: $corpus
// returns: id, title, corpora
MATCH (c:Community)
WHERE $corpus IN c.corpora
RETURN c.id AS id, c.title AS title, c.corpora AS corpora
