// How two entities are related: shortest paths between them through entity relationships
// and shared chunks, with the chunks that support each step.
// params: $a, $b, $maxHops, $limit
// returns: nodes, relationships, support
MATCH (a:__Entity__ {id: $a}), (b:__Entity__ {id: $b})
MATCH p = allShortestPaths((a)-[*..6]-(b))
WHERE all(n IN nodes(p) WHERE n:__Entity__ OR n:Chunk) AND length(p) <= $maxHops * 2
WITH p LIMIT $limit
RETURN [n IN nodes(p) | {id: coalesce(n.id, elementId(n)), name: coalesce(n.name, n.title, left(n.text, 80)),
                         labels: labels(n)}] AS nodes,
       [r IN relationships(p) | {type: type(r), start: coalesce(startNode(r).id, elementId(startNode(r))),
                                 end: coalesce(endNode(r).id, elementId(endNode(r))),
                                 chunkId: r.chunkId, description: r.description}] AS relationships,
       [n IN nodes(p) WHERE n:Chunk | n.id] AS support
