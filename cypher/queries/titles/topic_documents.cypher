// For topics $ids: whether one exists (its name and normName), and the first documents by id whose chunks are about it
// (an own-title edge, the title linker's or kept under the entity linker's as titleRule), with
// their titles: what names a topic, and whether any document still carries it.
// params: $ids, $limit
// returns: id, exists, name, normName, docs
UNWIND $ids AS id
OPTIONAL MATCH (e:__Entity__ {id: id})
CALL (e) {
  OPTIONAL MATCH (e)<-[m:MENTIONS]-(:Chunk)-[:FROM_DOCUMENT]->(d:Document)
  WHERE (m.source = 'title' AND m.rule = 'own-title') OR m.titleRule = 'own-title'
  WITH DISTINCT d WHERE d IS NOT NULL
  WITH d ORDER BY d.id LIMIT $limit
  RETURN collect([d.id, d.title]) AS docs
}
RETURN id, e IS NOT NULL AS exists, e.name AS name, e.normName AS normName, docs
