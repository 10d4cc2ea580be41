// Stored content hashes of the given documents, to skip unchanged ones.
// params: $ids
// returns: id, contentHash
UNWIND $ids AS id
MATCH (d:Document {id: id})
RETURN d.id AS id, d.contentHash AS contentHash
