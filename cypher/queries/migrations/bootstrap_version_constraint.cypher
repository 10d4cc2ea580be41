// Bootstrap: one record per migration version, even under concurrent runs.
// params: none
// returns: nothing
CREATE CONSTRAINT migration_version IF NOT EXISTS
FOR (m:__Migration) REQUIRE m.version IS UNIQUE
