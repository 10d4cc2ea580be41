// One page of the vocabulary in id order after $after.
// params: $after, $limit
// returns: id, lower, known, leads (chunks whose clause starts with it)
MATCH (w:Word)
WHERE w.id > $after
RETURN w.id AS id, w.lower AS lower, w.known AS known, COUNT { (w)<-[:LEADS]-(:Chunk) } AS leads
ORDER BY w.id
LIMIT $limit
