// The stored entity documents with what deciding their removal needs: their corpus, and
// whether their entity still exists (with its type and labels).
// params: none
// returns: id, corpus, entityExists, entityType, entityLabels
MATCH (d:EntityDocument)
OPTIONAL MATCH (e:__Entity__ {id: d.entityId})
RETURN d.id AS id, d.corpus AS corpus, e IS NOT NULL AS entityExists, e.type AS entityType,
       CASE WHEN e IS NULL THEN [] ELSE labels(e) END AS entityLabels
ORDER BY d.id
