// How two entities are related: the shortest paths of typed relations between any entity
// named like the first and any named like the second (a story's entities and their canonical
// entity alike), through entities only. A path that passes through another of the named
// entities is left out: a shorter one between those two is already there.
// params: $a, $b (lists of entity ids), $limit, $scope
// $scope: the corpora of the key asking (null: every corpus): every entity on a path is named by them, and
// every relation was read from one of their chunks or documents.
// returns: nodes (id, name, type, documentId, description), relationships (type, start, end,
//          description, documentId), hops
UNWIND $a AS aId
MATCH (a:__Entity__ {id: aId})
UNWIND $b AS bId
MATCH (b:__Entity__ {id: bId})
WHERE a <> b
MATCH p = allShortestPaths((a)-[*..4]-(b))
WHERE all(n IN nodes(p) WHERE n:__Entity__) AND all(r IN relationships(p) WHERE type(r) <> 'CO_OCCURS')
  AND ($scope IS NULL OR all(n IN nodes(p) WHERE ($scope IS NULL
       OR EXISTS { (n)<-[:MENTIONS]-(:Chunk)-[:FROM_DOCUMENT]->(sd:Document) WHERE sd.corpus IN $scope }
       OR EXISTS { (n)-[:FROM_CHUNK]->(:Chunk)-[:FROM_DOCUMENT]->(sd:Document) WHERE sd.corpus IN $scope }
       OR EXISTS { (n)<-[:DESCRIBES]-(sd:Document) WHERE sd.corpus IN $scope }
       OR EXISTS { MATCH (sd:Document) WHERE sd.id = n.documentId AND sd.corpus IN $scope }
       OR EXISTS { (n)<-[:INSTANCE_OF]-(:__Entity__)<-[:MENTIONS]-(:Chunk)-[:FROM_DOCUMENT]->(sd:Document) WHERE sd.corpus IN $scope }))
  AND all(r IN relationships(p) WHERE ($scope IS NULL OR type(r) = 'INSTANCE_OF'
       OR EXISTS { MATCH (sc:Chunk)-[:FROM_DOCUMENT]->(sd:Document) WHERE sc.id = r.chunkId AND sd.corpus IN $scope }
       OR EXISTS { MATCH (sd:Document) WHERE sd.id = r.documentId AND sd.corpus IN $scope })))
WITH p, [n IN nodes(p) | n.id] AS ids
WHERE none(x IN ids[1..-1] WHERE x IN $a OR x IN $b)
WITH p, size([r IN relationships(p) WHERE type(r) = 'INSTANCE_OF']) AS instanceSteps
ORDER BY length(p), instanceSteps
LIMIT $limit
RETURN [n IN nodes(p) | {id: n.id, name: coalesce(n.name, n.title),
                         type: coalesce(n.type, head([l IN labels(n) WHERE l <> '__Entity__'])),
                         documentId: n.documentId, description: n.description}] AS nodes,
       [r IN relationships(p) | {type: type(r), start: startNode(r).id, end: endNode(r).id,
                                 description: r.description, documentId: r.documentId}] AS relationships,
       length(p) AS hops
