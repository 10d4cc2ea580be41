// The relations the question's entity actually has, both ways, with the labels at their far
// ends and how many edges each has (up to $sample per type): what a lookup of that entity can
// answer. Each type is expanded by name, so the chunks that mention a much-mentioned entity
// (MENTIONS, not a relation a question asks about) are never walked.
// params: $ids, $types (the catalog's relation types), $sample
// returns: type, outgoing, far, edges
UNWIND $ids AS xid
MATCH (x:__Entity__ {id: xid})
UNWIND $types AS type
CALL (x, type) {
  MATCH (x)-[r:$(type)]-(y:__Entity__)
  WHERE y <> x
  WITH r, y LIMIT $sample
  RETURN startNode(r) = x AS outgoing, [l IN labels(y) WHERE l <> '__Entity__'] AS far, count(*) AS edges
}
RETURN type, outgoing, far, sum(edges) AS edges
ORDER BY type, outgoing
