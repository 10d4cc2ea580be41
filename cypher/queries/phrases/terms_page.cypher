// One page of terms in id order after $after: what a full run compares its counts with.
// params: $after, $limit
// returns: id, name, chunks, nameChunk, phrase
MATCH (t:Term)
WHERE t.id > $after
RETURN t.id AS id, t.name AS name, t.chunks AS chunks, t.nameChunk AS nameChunk, t:Phrase AS phrase
ORDER BY t.id
LIMIT $limit
