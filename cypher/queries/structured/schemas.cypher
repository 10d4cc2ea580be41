// The KG schemas recorded by loads and extractions (their relation types and phrases, and
// their entity types with descriptions, as JSON).
// params: (none)
// returns: name, path, relations, types
MATCH (s:__Schema)
RETURN s.name AS name, s.path AS path, s.relations AS relations, s.types AS types
ORDER BY s.updatedAt DESC
