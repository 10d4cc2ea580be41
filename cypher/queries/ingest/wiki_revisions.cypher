// The stored revision of the given wiki page documents, so an API load fetches only pages
// that changed (a new revision, other redirects to it, another corpus).
// params: $ids
// returns: id, revisionId, aliases, corpus
UNWIND $ids AS id
MATCH (d:Document {id: id})
RETURN d.id AS id, d.revisionId AS revisionId, coalesce(d.aliases, []) AS aliases, d.corpus AS corpus
