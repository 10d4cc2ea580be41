// Communities whose member sets no longer exist, deleted with their edges.
// params: $ids
// returns: removed
UNWIND $ids AS id
MATCH (c:Community {id: id})
DETACH DELETE c
RETURN count(*) AS removed
