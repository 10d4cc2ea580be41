// Heuristically typed entities worth a second opinion (low confidence, a tie or a close
// runner-up) that this model has not validated yet.
// params: $schema, $validatedBy
// returns: id, name, type, typeScores, reason, infoboxType
MATCH (e:__Entity__)
WHERE e.schema = $schema AND e.typedBy = 'infobox' AND e.needsReview = true
  AND coalesce(e.validatedBy, '') <> $validatedBy
RETURN e.id AS id, e.name AS name, e.type AS type, e.typeScores AS typeScores, e.reason AS reason,
       e.infoboxType AS infoboxType
ORDER BY e.id
