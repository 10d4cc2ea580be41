// How two entities are related when no typed path joins them: shortest paths through entity
// relationships and the chunks that mention them, with the chunks that support each step.
// params: $a, $b (lists of entity ids), $maxHops, $limit, $scope
// $scope: the corpora of the key asking (null: every corpus): every chunk on a path is theirs, every entity one
// they name.
// returns: nodes, relationships, support
UNWIND $a AS aId
MATCH (a:__Entity__ {id: aId})
UNWIND $b AS bId
MATCH (b:__Entity__ {id: bId})
WHERE a <> b
MATCH p = allShortestPaths((a)-[*..6]-(b))
WHERE all(n IN nodes(p) WHERE n:__Entity__ OR n:Chunk) AND length(p) <= $maxHops * 2
  AND ($scope IS NULL OR all(n IN nodes(p) WHERE
       CASE WHEN n:Chunk THEN EXISTS { (n)-[:FROM_DOCUMENT]->(sd:Document) WHERE sd.corpus IN $scope }
            ELSE ($scope IS NULL
            OR EXISTS { (n)<-[:MENTIONS]-(:Chunk)-[:FROM_DOCUMENT]->(sd:Document) WHERE sd.corpus IN $scope }
            OR EXISTS { (n)-[:FROM_CHUNK]->(:Chunk)-[:FROM_DOCUMENT]->(sd:Document) WHERE sd.corpus IN $scope }
            OR EXISTS { (n)<-[:DESCRIBES]-(sd:Document) WHERE sd.corpus IN $scope }
            OR EXISTS { MATCH (sd:Document) WHERE sd.id = n.documentId AND sd.corpus IN $scope }
            OR EXISTS { (n)<-[:INSTANCE_OF]-(:__Entity__)<-[:MENTIONS]-(:Chunk)-[:FROM_DOCUMENT]->(sd:Document) WHERE sd.corpus IN $scope }) END))
WITH p ORDER BY length(p)
LIMIT $limit
RETURN [n IN nodes(p) | {id: coalesce(n.id, elementId(n)), name: coalesce(n.name, n.title, left(n.text, 80)),
                         type: coalesce(n.type, head([l IN labels(n) WHERE l <> '__Entity__'])),
                         documentId: n.documentId, labels: labels(n)}] AS nodes,
       [r IN relationships(p) | {type: type(r), start: coalesce(startNode(r).id, elementId(startNode(r))),
                                 end: coalesce(endNode(r).id, elementId(endNode(r))),
                                 chunkId: r.chunkId, description: r.description}] AS relationships,
       [n IN nodes(p) WHERE n:Chunk | n.id] AS support
