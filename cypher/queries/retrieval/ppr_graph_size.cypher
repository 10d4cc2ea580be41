// What the PPR projection should hold now: chunk–entity mentions and entity–entity links.
// params: none
// returns: relationships
CALL () {
  MATCH (:Chunk)-[m:MENTIONS]->(:__Entity__) RETURN count(m) AS mentions
}
CALL () {
  MATCH (:__Entity__)-[r]->(:__Entity__) RETURN count(r) AS links
}
RETURN mentions + links AS relationships
