// Release the migration lock held by $owner.
// params: $owner
// returns: released (count)
OPTIONAL MATCH (l:__MigrationLock {id: 'graphrag', owner: $owner})
DELETE l
RETURN count(l) AS released
