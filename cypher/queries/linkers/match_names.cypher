// The reference engine: for each name, a full-text shortlist of chunks on `chunk_text`
// (accent-folding analyzer), then the word-boundary regex of linkers/matcher.py on the
// chunk's NFD text; the capital rule (a capital letter, not a short acronym) is checked on each surface.
// params: $names, $skipSections, $corpus
// returns: key, chunkId, docId, surfaces
UNWIND $names AS name
CALL db.index.fulltext.queryNodes('chunk_text', name.query) YIELD node AS c
WITH name, c
WHERE NOT coalesce(c.section, '') =~ $skipSections
MATCH (c)-[:FROM_DOCUMENT]->(d:Document)
WHERE $corpus IS NULL OR d.corpus = $corpus
WITH name, c, d, [g IN apoc.text.regexGroups(normalize(c.text, NFD), name.pattern) | normalize(g[1], NFC)] AS found
WITH name, c, d, [s IN found WHERE NOT name.capital
                  OR (s =~ '(?s).*\\p{Lu}.*' AND (s =~ '(?s).*\\p{Ll}.*' OR size(s) > 4))] AS surfaces
WHERE size(surfaces) > 0
RETURN name.key AS key, c.id AS chunkId, d.id AS docId, apoc.coll.sort(apoc.coll.toSet(surfaces)) AS surfaces
