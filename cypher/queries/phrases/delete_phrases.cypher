// Remove phrases that no longer join two chunks.
// params: $ids
// returns: removed
UNWIND $ids AS id
MATCH (p:Phrase {id: id})
DETACH DELETE p
RETURN count(*) AS removed
