// Entities to compare for fuzzy resolution, with the number of relationships each has.
// params: $schema
// returns: id, name, normName, type, scope, storyId, degree
MATCH (e:__Entity__)
WHERE e.schema IS NOT NULL AND e.type IS NOT NULL AND e.normName IS NOT NULL
  AND ($schema IS NULL OR e.schema = $schema)
RETURN e.id AS id, e.name AS name, e.normName AS normName, e.type AS type, e.schema AS schema,
       coalesce(e.scope, 'global') AS scope, e.storyId AS storyId, COUNT { (e)--() } AS degree
