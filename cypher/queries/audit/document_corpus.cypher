// The corpus of a document about to be forgotten, for the audit record (run first, in the
// forgetting transaction). No row: no such document.
// params: $id
// returns: corpus
MATCH (d:Document {id: $id})
RETURN d.corpus AS corpus
