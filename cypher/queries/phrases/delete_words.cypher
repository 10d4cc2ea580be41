// Words no chunk writes in lower case: gone, unless a chunk's clause starts with them.
// params: $ids
// returns: removed
UNWIND $ids AS id
MATCH (w:Word {id: id})
CALL (w) {
  WITH w WHERE EXISTS { (w)<-[:LEADS]-(:Chunk) }
  SET w.lower = 0, w.known = false
}
CALL (w) {
  WITH w WHERE NOT EXISTS { (w)<-[:LEADS]-(:Chunk) }
  DETACH DELETE w
}
RETURN count(*) AS removed
