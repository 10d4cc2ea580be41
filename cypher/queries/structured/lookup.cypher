// The entities on the far side of one relation from the question's entity, each edge with
// where it came from: the chunk it was extracted from, the entity's own document (a wiki page
// that describes it, or its entity document), or the record that was loaded.
// `$out` true: the entity is the relation's source (x)-[:TYPE]->(y); false: (y)-[:TYPE]->(x).
// `$inverse` names the type that reads the same edge the other way (CHILD_OF / PARENT_OF);
// a `$symmetric` type is read both ways. `$labels` (or null) keeps far ends of those labels.
// params: $ids, $type, $inverse, $symmetric, $out, $labels, $limit, $scope
// $scope: the corpora of the key asking (null: every corpus): only entities they name, and relations read
// from their chunks or documents.
// returns: id, name, labels, relation, outgoing, record, property, recordSource, chunkId, documentId, title, uri, text, entityId, entityName
UNWIND $ids AS xid
MATCH (x:__Entity__ {id: xid})
WHERE ($scope IS NULL
   OR EXISTS { (x)<-[:MENTIONS]-(:Chunk)-[:FROM_DOCUMENT]->(sd:Document) WHERE sd.corpus IN $scope }
   OR EXISTS { (x)-[:FROM_CHUNK]->(:Chunk)-[:FROM_DOCUMENT]->(sd:Document) WHERE sd.corpus IN $scope }
   OR EXISTS { (x)<-[:DESCRIBES]-(sd:Document) WHERE sd.corpus IN $scope }
   OR EXISTS { MATCH (sd:Document) WHERE sd.id = x.documentId AND sd.corpus IN $scope }
   OR EXISTS { (x)<-[:INSTANCE_OF]-(:__Entity__)<-[:MENTIONS]-(:Chunk)-[:FROM_DOCUMENT]->(sd:Document) WHERE sd.corpus IN $scope })
MATCH (x)-[r]-(y:__Entity__)
WHERE y <> x
  AND ($scope IS NULL
       OR EXISTS { (y)<-[:MENTIONS]-(:Chunk)-[:FROM_DOCUMENT]->(sd:Document) WHERE sd.corpus IN $scope }
       OR EXISTS { (y)-[:FROM_CHUNK]->(:Chunk)-[:FROM_DOCUMENT]->(sd:Document) WHERE sd.corpus IN $scope }
       OR EXISTS { (y)<-[:DESCRIBES]-(sd:Document) WHERE sd.corpus IN $scope }
       OR EXISTS { MATCH (sd:Document) WHERE sd.id = y.documentId AND sd.corpus IN $scope }
       OR EXISTS { (y)<-[:INSTANCE_OF]-(:__Entity__)<-[:MENTIONS]-(:Chunk)-[:FROM_DOCUMENT]->(sd:Document) WHERE sd.corpus IN $scope })
  AND ($scope IS NULL OR type(r) = 'INSTANCE_OF'
       OR EXISTS { MATCH (sc:Chunk)-[:FROM_DOCUMENT]->(sd:Document) WHERE sc.id = r.chunkId AND sd.corpus IN $scope }
       OR EXISTS { MATCH (sd:Document) WHERE sd.id = r.documentId AND sd.corpus IN $scope })
  AND ((type(r) = $type AND ($symmetric OR (startNode(r) = x) = $out))
       OR (type(r) = $inverse AND (startNode(r) = x) <> $out))
  AND ($labels IS NULL OR any(l IN labels(y) WHERE l IN $labels))
WITH x, r, y LIMIT $limit
OPTIONAL MATCH (c:Chunk {id: r.chunkId})-[:FROM_DOCUMENT]->(cd:Document)
OPTIONAL MATCH (own:Document)
  WHERE own.id IN [x.documentId, y.documentId, 'entity:' + x.id]
WITH x, r, y, c, cd, own ORDER BY CASE WHEN own.id = x.documentId THEN 0 WHEN own.id = y.documentId THEN 1 ELSE 2 END
WITH x, r, y, c, cd, head(collect(own)) AS own
OPTIONAL MATCH (oc:Chunk)-[:FROM_DOCUMENT]->(own) WHERE c IS NULL
WITH x, r, y, c, cd, own, oc ORDER BY oc.index
WITH x, r, y, c, cd, own, head(collect(oc)) AS oc
WITH x, r, y, coalesce(c, oc) AS chunk, coalesce(cd, own) AS doc
RETURN y.id AS id, coalesce(y.name, y.title) AS name, [l IN labels(y) WHERE l <> '__Entity__'] AS labels,
       type(r) AS relation, startNode(r) = x AS outgoing, r.record AS record, r.property AS property,
       r.source AS recordSource, chunk.id AS chunkId, doc.id AS documentId, doc.title AS title,
       doc.uri AS uri, chunk.text AS text, x.id AS entityId, coalesce(x.name, x.title) AS entityName
