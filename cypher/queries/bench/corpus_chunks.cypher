// The chunks of a corpus in order, every property (the embedding included), to copy a corpus.
// params: $corpus
// returns: doc, id, props
MATCH (d:Document {corpus: $corpus})<-[:FROM_DOCUMENT]-(c:Chunk)
WITH d, c ORDER BY c.index
RETURN d.id AS doc, c.id AS id, properties(c) AS props
