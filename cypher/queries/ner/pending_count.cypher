// How many chunks ner/pending_chunks would give in all (for progress and an ETA).
// params: $fingerprint, $corpus, $kinds, $documentIds
// returns: chunks
MATCH (c:Chunk)
WHERE (c.nerBy IS NULL OR c.nerBy <> $fingerprint OR coalesce(c.nerHash, '') <> coalesce(c.contentHash, ''))
  AND EXISTS {
    MATCH (c)-[:FROM_DOCUMENT]->(d:Document)
    WHERE NOT d:EntityDocument
      AND ($corpus IS NULL OR d.corpus = $corpus)
      AND ($kinds IS NULL OR d.kind IN $kinds)
      AND ($documentIds IS NULL OR d.id IN $documentIds)
  }
RETURN count(c) AS chunks
