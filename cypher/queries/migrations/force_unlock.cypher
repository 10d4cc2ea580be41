// Remove a stale migration lock left by a run that died.
// params: none
// returns: released (count)
OPTIONAL MATCH (l:__MigrationLock)
DELETE l
RETURN count(l) AS released
