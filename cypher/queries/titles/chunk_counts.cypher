// How many chunks there are, and how many are waiting for the title linker (:PendingTitles).
// params: none
// returns: total, pending
CALL () { MATCH (c:Chunk) RETURN count(c) AS total }
CALL () { MATCH (c:PendingTitles) RETURN count(c) AS pending }
RETURN total, pending
