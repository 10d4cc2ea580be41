// Take the migration lock; fails with a constraint violation while another run holds it.
// params: $owner
// returns: owner
CREATE (l:__MigrationLock {id: 'graphrag', owner: $owner, acquiredAt: datetime()})
RETURN l.owner AS owner
