// The chunks the entities of a path came from: those they were extracted from (FROM_CHUNK) or
// that mention them (weight 2 each), and the first chunk of the document an entity belongs to
// (documentId, weight 1). Chunks that several of the path's entities came from come first.
// params: $entityIds, $k, $corpus, $from, $to, $about, $scope
// returns: chunkId, documentId, title, uri, text, score, entities
UNWIND $entityIds AS entityId
MATCH (e:__Entity__ {id: entityId})
CALL (e) {
  MATCH (e)-[:FROM_CHUNK]->(c:Chunk) RETURN c, 2 AS w
  UNION
  MATCH (c:Chunk)-[:MENTIONS]->(e) RETURN c, 2 AS w
  UNION
  MATCH (c:Chunk)-[:FROM_DOCUMENT]->(:Document {id: e.documentId}) WHERE c.index = 0 RETURN c, 1 AS w
}
WITH c, sum(w) AS weight, collect(DISTINCT e.id) AS entities
MATCH (c)-[:FROM_DOCUMENT]->(d:Document)
WHERE ($corpus IS NULL OR d.corpus = $corpus) AND ($scope IS NULL OR d.corpus IN $scope)
  AND ($from IS NULL OR d.date >= $from)
  AND ($to IS NULL OR d.date <= $to)
  AND ($about IS NULL OR EXISTS { (c)-[:MENTIONS]->(named:__Entity__) WHERE named.id IN $about })
RETURN c.id AS chunkId, d.id AS documentId, d.title AS title, d.uri AS uri, c.text AS text, weight AS score,
       entities
ORDER BY weight DESC, d.id, c.index
LIMIT $k
