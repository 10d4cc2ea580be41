// How many chunks there are, and how many are waiting for the entity linker (:PendingEntities).
// params: none
// returns: total, pending
CALL () { MATCH (c:Chunk) RETURN count(c) AS total }
CALL () { MATCH (c:PendingEntities) RETURN count(c) AS pending }
RETURN total, pending
