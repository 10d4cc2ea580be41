// The relations the question's entity actually has, both ways, with the labels at their far
// ends and how many edges each has: what a lookup of that entity can answer.
// params: $ids, $skip (structural types that are not relations between things)
// returns: type, outgoing, far, edges
UNWIND $ids AS xid
MATCH (x:__Entity__ {id: xid})-[r]-(y:__Entity__)
WHERE y <> x AND NOT type(r) IN $skip
WITH type(r) AS type, startNode(r) = x AS outgoing, [l IN labels(y) WHERE l <> '__Entity__'] AS far
RETURN type, outgoing, far, count(*) AS edges
ORDER BY type, outgoing
