// Heuristically typed entities worth a second opinion (low confidence, a tie, a close
// runner-up, or the schema's fallback type) that this model has not validated yet, with the
// title, categories and start of the page that describes each.
// params: $schema, $validatedBy
// returns: id, name, type, typeScores, reason, infoboxType, categories, lead
MATCH (e:__Entity__)
WHERE e.schema = $schema AND e.typedBy IN ['infobox', 'page'] AND e.needsReview = true
  AND coalesce(e.validatedBy, '') <> $validatedBy
OPTIONAL MATCH (d:Document)-[:DESCRIBES]->(e)
WITH e, head(collect(d)) AS d
OPTIONAL MATCH (c:Chunk {id: d.id + '::0'})
RETURN e.id AS id, e.name AS name, e.type AS type, e.typeScores AS typeScores, e.reason AS reason,
       e.infoboxType AS infoboxType, coalesce(d.categories, []) AS categories, left(c.text, 300) AS lead
ORDER BY e.id
