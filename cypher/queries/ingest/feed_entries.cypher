// The stored entry hash of the given feed-entry documents, so a feed load fetches and parses
// only entries that are new or changed (or moved to another corpus).
// params: $ids
// returns: id, entryHash, corpus
UNWIND $ids AS id
MATCH (d:Document {id: id})
RETURN d.id AS id, d.entryHash AS entryHash, d.corpus AS corpus
