// The phrases in the graph now, with their display name and chunk count.
// params: none
// returns: id, name, chunks
MATCH (p:Phrase)
RETURN p.id AS id, p.name AS name, p.chunks AS chunks
