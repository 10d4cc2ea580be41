// Entities the entity linker looks for (not gazetteer places: `link places` handles those):
// id, name and aliases, the document a story-scoped entity belongs to, if any, and what the
// last entity run linked it as (`linkedAs`: its names and document then; null when never).
// params: none
// returns: id, names, documentId, linkedAs
MATCH (e:__Entity__)
WHERE e.id IS NOT NULL AND NOT e:Place AND coalesce(e.name, '') <> ''
RETURN e.id AS id, [e.name] + coalesce(e.aliases, []) AS names, e.documentId AS documentId, e.linkedAs AS linkedAs
