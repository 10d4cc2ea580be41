// Bootstrap: at most one migration lock node can exist.
// params: none
// returns: nothing
CREATE CONSTRAINT migration_lock IF NOT EXISTS
FOR (l:__MigrationLock) REQUIRE l.id IS UNIQUE
