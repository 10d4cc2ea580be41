// The extraction checkpoint of a document: set only after its entities and relations are
// written, so an interrupted run redoes at most the batch it was writing.
// params: $rows
// returns: stories
UNWIND $rows AS row
MATCH (d:Document {id: row.documentId})
SET d.extractedBy = row.extractedBy, d.extractionChecksum = row.checksum, d.extractedAt = datetime()
RETURN count(d) AS stories
