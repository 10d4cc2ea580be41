// The KG schemas recorded by loads and extractions (their relation types and phrases, as JSON).
// params: (none)
// returns: name, path, relations
MATCH (s:__Schema)
RETURN s.name AS name, s.path AS path, s.relations AS relations
ORDER BY s.updatedAt DESC
