// Entities the recogniser created ($source prefix) that nothing refers to any more: no chunk
// mentions them, no document describes or was authored by them, no relation. Returns how many went.
// params: $sourcePrefix
// returns: entities
MATCH (e:__Entity__)
WHERE e.source STARTS WITH $sourcePrefix AND NOT EXISTS { (e)--() }
DETACH DELETE e
RETURN count(e) AS entities
