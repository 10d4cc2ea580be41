// One page of the vocabulary in id order after $after.
// params: $after, $limit
// returns: id, lower, known
MATCH (w:Word)
WHERE w.id > $after
RETURN w.id AS id, w.lower AS lower, w.known AS known
ORDER BY w.id
LIMIT $limit
