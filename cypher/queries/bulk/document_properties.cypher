// The given documents as stored: labels and properties.
// params: $ids
// returns: id, labels, properties
UNWIND $ids AS id
MATCH (d:Document {id: id})
RETURN id, labels(d) AS labels, properties(d) AS properties
