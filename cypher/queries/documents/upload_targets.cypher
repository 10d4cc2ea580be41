// The documents an upload may replace: those of $ids that exist, with their corpus and the
// hash that decides "unchanged" (store/ingest.py stored_hash).
// params: $ids
// returns: id, corpus, contentHash
UNWIND $ids AS id
MATCH (d:Document {id: id})
RETURN d.id AS id, d.corpus AS corpus, d.contentHash AS contentHash
