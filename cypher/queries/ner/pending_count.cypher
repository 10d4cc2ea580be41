// How many chunks ner/pending_chunks would give in all (for progress and an ETA).
// params: $fingerprint, $corpus, $kind, $documentIds
// returns: chunks
MATCH (c:Chunk)
WHERE (c.nerBy IS NULL OR c.nerBy <> $fingerprint OR coalesce(c.nerHash, '') <> coalesce(c.contentHash, ''))
  AND EXISTS {
    MATCH (c)-[:FROM_DOCUMENT]->(d:Document)
    WHERE NOT d:EntityDocument
      AND ($corpus IS NULL OR d.corpus = $corpus)
      AND ($kind IS NULL OR d.kind = $kind)
      AND ($documentIds IS NULL OR d.id IN $documentIds)
  }
RETURN count(c) AS chunks
