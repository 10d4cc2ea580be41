// Terms no chunk has any more, with their pairs.
// params: $ids
// returns: removed
UNWIND $ids AS id
MATCH (t:Term {id: id})
DETACH DELETE t
RETURN count(*) AS removed
