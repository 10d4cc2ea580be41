// Who holds the migration lock, if anyone.
// params: none
// returns: owner, since
MATCH (l:__MigrationLock {id: 'graphrag'})
RETURN l.owner AS owner, toString(l.acquiredAt) AS since
