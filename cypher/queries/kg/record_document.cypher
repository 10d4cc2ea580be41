// The document a records file loaded into a corpus stands for (`load records --corpus`): no chunks,
// it DESCRIBES each entity the file names and is the `documentId` of each relation it gives, so a
// key scoped to the corpus sees them and `forget` of the document takes them away. Loading the
// file again updates it in place.
// params: $id, $corpus, $title, $uri, $records
// returns: id, created
MERGE (d:Document {id: $id})
ON CREATE SET d.createdAt = datetime()
WITH d, d.records IS NULL AS created
SET d.corpus = $corpus, d.title = $title, d.uri = $uri, d.kind = 'records', d.loader = 'records',
    d.records = $records, d.updatedAt = datetime()
RETURN d.id AS id, created
