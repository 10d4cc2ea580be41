// The reference engine: for each name, a full-text shortlist of chunks on `chunk_text`
// (accent-folding analyzer), then the word-boundary regex of linkers/matcher.py on the
// chunk's NFD text; the capital rule (a capital letter, not a short acronym) is checked on
// each surface. Each match comes with where it is in the NFD text (the pieces the same
// regex splits the text into give the offsets) and up to $window characters on each side.
// params: $names, $skipSections, $corpus, $window
// returns: key, chunkId, docId, found ([start, end, surface, before, after] per match, surface and windows NFD)
UNWIND $names AS name
CALL db.index.fulltext.queryNodes('chunk_text', name.query) YIELD node AS c
WITH name, c
WHERE NOT coalesce(c.section, '') =~ $skipSections
MATCH (c)-[:FROM_DOCUMENT]->(d:Document)
WHERE $corpus IS NULL OR d.corpus = $corpus
WITH name, c, d, normalize(c.text, NFD) AS text
WITH name, c, d, text, [g IN apoc.text.regexGroups(text, name.pattern) | g[0]] AS groups
WHERE size(groups) > 0
WITH name, c, d, text, groups, apoc.text.split(text, name.pattern, -1) AS pieces
WITH name, c, d, text,
     reduce(acc = {at: 0, out: []}, i IN range(0, size(groups) - 1) |
            {at: acc.at + size(pieces[i]) + size(groups[i]),
             out: acc.out + [[acc.at + size(pieces[i]), acc.at + size(pieces[i]) + size(groups[i]), groups[i]]]}).out AS spans
WITH name, c, d, [s IN spans
                  WHERE NOT name.capital OR (normalize(s[2], NFC) =~ '(?s).*\\p{Lu}.*'
                        AND (normalize(s[2], NFC) =~ '(?s).*\\p{Ll}.*' OR size(normalize(s[2], NFC)) > 4))
                  | [s[0], s[1], s[2],
                     substring(text, CASE WHEN s[0] > $window THEN s[0] - $window ELSE 0 END,
                               CASE WHEN s[0] > $window THEN $window ELSE s[0] END),
                     substring(text, s[1], $window)]] AS found
WHERE size(found) > 0
RETURN name.key AS key, c.id AS chunkId, d.id AS docId, found
