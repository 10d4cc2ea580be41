// Every chunk id in order, one row each (a sample of them is compared between two graphs).
// params: none
// returns: id
MATCH (c:Chunk)
RETURN c.id AS id
ORDER BY id
