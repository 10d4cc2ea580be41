// One community's report for `communities report <id>`, with its parent and children.
// params: $id
// returns: community (its properties without the embedding), parent, children
MATCH (c:Community {id: $id})
OPTIONAL MATCH (c)-[:PARENT]->(p:Community)
RETURN c {.*, embedding: null} AS community, p.id AS parent,
       COLLECT { MATCH (child:Community)-[:PARENT]->(c) RETURN child.id ORDER BY child.size DESC } AS children
