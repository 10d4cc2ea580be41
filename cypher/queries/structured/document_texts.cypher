// Every document with the text of its chunks in order (the ground truth of "which documents
// mention X" in bench/structured.py: the stored text, matched there).
// params: (none)
// returns: id, title, story, corpus, texts
MATCH (d:Document)<-[:FROM_DOCUMENT]-(c:Chunk)
WITH d, c ORDER BY c.seq
RETURN d.id AS id, d.title AS title, d:Story AS story, d.corpus AS corpus, collect(c.text) AS texts
