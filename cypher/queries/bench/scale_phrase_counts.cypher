// Phrases whose stored chunk count (`chunks`, the retrieval weight) is not the number of chunks
// linked to them by HAS_PHRASE: the forget check of bench/scale.py (0 when the counts are right).
// params: none
// returns: phrases, wrong, examples (up to 5: id, chunks, links)
MATCH (p:Phrase)
WITH p, COUNT { (p)<-[:HAS_PHRASE]-(:Chunk) } AS links
WITH count(p) AS phrases,
     [row IN collect(CASE WHEN p.chunks <> links THEN {id: p.id, chunks: p.chunks, links: links} END)
      WHERE row IS NOT NULL] AS wrong
RETURN phrases, size(wrong) AS wrong, wrong[..5] AS examples
