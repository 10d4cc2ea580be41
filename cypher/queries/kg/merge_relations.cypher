// Typed relations between entities. `row.type` has passed the schema's allowlist (and the
// allowed source -> target pairs) and is applied with Cypher's dynamic-type syntax.
// params: $rows
// returns: relationships
UNWIND $rows AS row
MATCH (a:__Entity__ {id: row.source})
MATCH (b:__Entity__ {id: row.target})
MERGE (a)-[r:$(row.type)]->(b)
SET r += row.props
RETURN count(r) AS relationships
