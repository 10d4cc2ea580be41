// Entities to compare for resolution, with the number of relationships each has, its aliases,
// whether a page or record of its own describes it, and the corpora of the documents and
// chunks that describe or mention it ('' for none set).
// params: $schema
// returns: id, name, normName, type, schema, scope, storyId, degree, aliases, typedBy, corpora
MATCH (e:__Entity__)
WHERE e.schema IS NOT NULL AND e.type IS NOT NULL AND e.normName IS NOT NULL
  AND ($schema IS NULL OR e.schema = $schema)
RETURN e.id AS id, e.name AS name, e.normName AS normName, e.type AS type, e.schema AS schema,
       coalesce(e.scope, 'global') AS scope, e.storyId AS storyId, COUNT { (e)--() } AS degree,
       coalesce(e.aliases, []) AS aliases, e.typedBy AS typedBy,
       COLLECT {
         MATCH (d:Document)-[:DESCRIBES]->(e) RETURN coalesce(d.corpus, '') AS corpus
         UNION
         MATCH (c:Chunk)-[:MENTIONS]->(e) RETURN coalesce(c.corpus, '') AS corpus
       } AS corpora
