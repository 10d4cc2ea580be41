// The next chunks the named-entity recogniser has not read in their current text: no
// checkpoint, another pipeline or mapping ($fingerprint), or text changed since (contentHash).
// Paged in id order (the Chunk id index gives the order): pass the last id of a page as $after.
// Chunks of entity documents (generated from the graph) are not read. $corpus, $kinds and
// $documentIds narrow the documents (null: any).
// params: $after, $fingerprint, $corpus, $kinds, $documentIds, $limit
// returns: id, text
MATCH (c:Chunk)
WHERE c.id > $after
  AND (c.nerBy IS NULL OR c.nerBy <> $fingerprint OR coalesce(c.nerHash, '') <> coalesce(c.contentHash, ''))
  AND EXISTS {
    MATCH (c)-[:FROM_DOCUMENT]->(d:Document)
    WHERE NOT d:EntityDocument
      AND ($corpus IS NULL OR d.corpus = $corpus)
      AND ($kinds IS NULL OR d.kind IN $kinds)
      AND ($documentIds IS NULL OR d.id IN $documentIds)
  }
RETURN c.id AS id, c.text AS text
ORDER BY c.id
LIMIT $limit
