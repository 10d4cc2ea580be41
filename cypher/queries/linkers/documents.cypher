// One page of document ids of $corpus (all when null) in id order after $after (a full entity run).
// params: $after, $limit, $corpus
// returns: ids
MATCH (d:Document)
WHERE d.id > $after AND ($corpus IS NULL OR d.corpus = $corpus)
WITH d ORDER BY d.id LIMIT $limit
RETURN collect(d.id) AS ids
