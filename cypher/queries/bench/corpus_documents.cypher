// The documents of a corpus: id, title, secondary labels and every property (to copy a corpus
// from one bench graph into another, and the titles that are the gold of community quality).
// params: $corpus
// returns: id, title, labels, props
MATCH (d:Document {corpus: $corpus})
RETURN d.id AS id, d.title AS title, [l IN labels(d) WHERE l <> 'Document'] AS labels, properties(d) AS props
