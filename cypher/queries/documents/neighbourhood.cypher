// A node (entity, document or chunk, by id) and up to $limit neighbours, for drawing: nodes
// {id, label, name} and edges {source, target, type}. Vectors and texts are not returned. A
// neighbouring entity below $minConfidence (a numeric confidence; none, or a word, counts as 1.0) is not drawn; the node
// asked for always is.
// params: $id, $limit, $minConfidence
// returns: nodes, edges
CALL () {
  MATCH (n:__Entity__ {id: $id}) RETURN n
  UNION
  MATCH (n:Document {id: $id}) RETURN n
  UNION
  MATCH (n:Chunk {id: $id}) RETURN n
}
WITH n LIMIT 1
CALL (n) {
  MATCH (n)-[r]-(m)
  WHERE m.id IS NOT NULL AND (m:__Entity__ OR m:Document OR m:Chunk OR m:Phrase)
    AND (NOT m:__Entity__ OR coalesce(toFloatOrNull(m.confidence), 1.0) >= $minConfidence)
  WITH r, m ORDER BY type(r), m.id LIMIT $limit
  RETURN collect(DISTINCT m) AS neighbours, collect(r) AS rels
}
WITH [n] + neighbours AS nodes, rels
RETURN [x IN nodes | {id: x.id, label: head([l IN labels(x) WHERE l <> '__Entity__'] + ['Node']),
                      name: coalesce(x.name, x.title, x.id)}] AS nodes,
       [r IN rels | {source: startNode(r).id, target: endNode(r).id, type: type(r)}] AS edges
