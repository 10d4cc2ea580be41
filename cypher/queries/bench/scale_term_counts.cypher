// Terms (every candidate phrase of a chunk, Phrase or not) whose stored chunk count is not the
// number of chunks linked to them by HAS_PHRASE or HAS_TERM (bench/scale.py; 0 terms in a graph
// whose phrase linker keeps no terms).
// params: none
// returns: terms, wrong
OPTIONAL MATCH (t:Term)
WITH t, CASE WHEN t IS NULL THEN 0 ELSE COUNT { (t)<-[:HAS_PHRASE|HAS_TERM]-(:Chunk) } END AS links
RETURN count(t) AS terms, count(CASE WHEN t.chunks <> links THEN t END) AS wrong
