// Documents for the LLM extractor, with their chunks in order and the extraction checkpoint:
// of corpus $corpus (null: any), whose kind is in $kinds (null: every kind but the generated
// entity documents; "story" also takes any :Story), with an id in $ids (null: any).
// params: $corpus, $kinds, $ids
// returns: id, kind, title, extractionChecksum, chunks
MATCH (d:Document)
WHERE ($corpus IS NULL OR d.corpus = $corpus)
  AND ($ids IS NULL OR d.id IN $ids)
  AND (($kinds IS NULL AND coalesce(d.kind, '') <> 'entity') OR d.kind IN $kinds
       OR (d:Story AND 'story' IN $kinds))
CALL (d) {
  MATCH (c:Chunk)-[:FROM_DOCUMENT]->(d)
  WITH c ORDER BY c.index
  RETURN collect({id: c.id, index: c.index, text: c.text}) AS chunks
}
RETURN d.id AS id, CASE WHEN d:Story THEN 'story' ELSE d.kind END AS kind, d.title AS title,
       d.extractionChecksum AS extractionChecksum, chunks
ORDER BY d.id
