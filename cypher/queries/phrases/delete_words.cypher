// Words no chunk writes in lower case nor starts a clause with any more.
// params: $ids
// returns: removed
UNWIND $ids AS id
MATCH (w:Word {id: id})
DETACH DELETE w
RETURN count(*) AS removed
