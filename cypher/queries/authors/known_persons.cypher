// Metadata persons whose name ends in one of the surnames (normName keys): what an
// initials-only author name ("S. Heath") is resolved against.
// params: $surnames
// returns: id, name
MATCH (p:Person:__Entity__ {source: 'metadata'})
WHERE p.normName IS NOT NULL AND last(split(p.normName, ' ')) IN $surnames
RETURN p.id AS id, p.name AS name
ORDER BY p.id
