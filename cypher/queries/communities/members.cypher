// The chunks and entities among projected node ids (GDS node ids of a Cypher projection are
// Neo4j's internal ids): who they are, and for a chunk its document and content hash. Phrases
// and documents are left out: they join chunks but are not community members.
// params: $nodeIds
// returns: nodeId, id, chunk (true for a chunk, false for an entity), name (of an entity), document, hash
UNWIND $nodeIds AS nodeId
MATCH (n)
WHERE id(n) = nodeId AND (n:Chunk OR n:__Entity__) AND n.id IS NOT NULL
OPTIONAL MATCH (n:Chunk)-[:FROM_DOCUMENT]->(d:Document)
RETURN nodeId, n.id AS id, n:Chunk AS chunk, CASE WHEN n:Chunk THEN null ELSE coalesce(n.name, n.id) END AS name,
       d.id AS document, n.contentHash AS hash
