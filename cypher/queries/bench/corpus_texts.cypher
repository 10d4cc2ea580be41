// Every document of a corpus with its chunks' stored text in order: the only source of the gold
// of bench/global_search.py and bench/communities.py (terms matched there, in Python).
// params: $corpus
// returns: id, title, texts, chunk_ids
MATCH (d:Document {corpus: $corpus})<-[:FROM_DOCUMENT]-(c:Chunk)
WITH d, c ORDER BY coalesce(c.seq, c.index)
RETURN d.id AS id, d.title AS title, collect(c.text) AS texts, collect(c.id) AS chunk_ids
