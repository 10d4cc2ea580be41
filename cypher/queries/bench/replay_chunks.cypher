// Every chunk of a corpus with its document, text and embedding: the passage graph the offline
// replay of the graph mode (bench/replay.py) ranks in memory.
// params: $corpus
// returns: id, doc, title, text, embedding
MATCH (d:Document {corpus: $corpus})<-[:FROM_DOCUMENT]-(c:Chunk)
RETURN c.id AS id, d.id AS doc, d.title AS title, c.text AS text, c.embedding AS embedding
ORDER BY id
