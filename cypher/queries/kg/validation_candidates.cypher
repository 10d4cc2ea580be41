// Heuristically typed entities worth a second opinion (low confidence, a tie, a close
// runner-up, the schema's fallback type, or known only as an infobox value) that this model
// has not validated yet, with the title, categories and start of the page that describes
// each, and for a value the infobox edges that name it (`namedIn`).
// params: $schema, $validatedBy
// returns: id, name, type, typedBy, typeScores, reason, infoboxType, categories, lead, namedIn
MATCH (e:__Entity__)
WHERE e.schema = $schema AND e.typedBy IN ['infobox', 'page', 'relation'] AND e.needsReview = true
  AND coalesce(e.validatedBy, '') <> $validatedBy
OPTIONAL MATCH (d:Document)-[:DESCRIBES]->(e)
WITH e, head(collect(d)) AS d
OPTIONAL MATCH (c:Chunk {id: d.id + '::0'})
RETURN e.id AS id, e.name AS name, e.type AS type, e.typedBy AS typedBy, e.typeScores AS typeScores,
       e.reason AS reason, e.infoboxType AS infoboxType, coalesce(d.categories, []) AS categories,
       left(c.text, 300) AS lead,
       [(e)-[r]-(o:__Entity__) WHERE r.source STARTS WITH 'infobox:' |
         {source: startNode(r).name, relation: type(r), target: endNode(r).name, field: r.property,
          value: r.value}][0..5] AS namedIn
ORDER BY e.id
