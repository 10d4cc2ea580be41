// A community's one parent at the level above: other PARENT edges of the child are removed.
// params: $rows (each {child, parent})
// returns: linked
UNWIND $rows AS row
MATCH (child:Community {id: row.child}), (parent:Community {id: row.parent})
CALL (child, parent) {
  OPTIONAL MATCH (child)-[old:PARENT]->(other)
  WHERE other <> parent
  DELETE old
}
MERGE (child)-[:PARENT]->(parent)
RETURN count(*) AS linked
