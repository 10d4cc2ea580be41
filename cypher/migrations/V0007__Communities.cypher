// Communities of the phrase/entity graph (`graphrag communities build`): one :Community per
// member set and level, found by id; global search reads them by level.
CREATE CONSTRAINT community_id IF NOT EXISTS
FOR (c:Community) REQUIRE c.id IS UNIQUE;

CREATE INDEX community_level IF NOT EXISTS
FOR (c:Community) ON (c.level);
