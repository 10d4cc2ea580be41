// How many documents of each kind a corpus holds (null: the whole graph), for the message
// of an extraction that found nothing of the kinds it was asked for.
// params: $corpus
// returns: kind, documents
MATCH (d:Document)
WHERE $corpus IS NULL OR d.corpus = $corpus
RETURN coalesce(d.kind, 'unknown') AS kind, count(*) AS documents
ORDER BY documents DESC, kind
