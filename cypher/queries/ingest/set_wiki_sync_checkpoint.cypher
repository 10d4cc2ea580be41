// Record how far a MediaWiki API load got: `$props` holds api, selection, continue (JSON text or
// null), pagesListed, startedAt / finishedAt (ISO strings). Written only after the documents
// listed before that point are committed, so a resumed run loses nothing.
// params: $id, $props
// returns: id
MERGE (s:__WikiSync {id: $id})
SET s += $props, s.updatedAt = datetime()
RETURN s.id AS id
