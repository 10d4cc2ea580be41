// The KG schemas recorded by loads and extractions (their relation types and phrases, as JSON).
// params: (none)
// returns: name, relations
MATCH (s:__Schema)
RETURN s.name AS name, s.relations AS relations
ORDER BY s.updatedAt DESC
