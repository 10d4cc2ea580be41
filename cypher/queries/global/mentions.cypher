// Every document of the scope whose stored chunk text holds the term: a full-text shortlist
// (`$query`, the term's forms), then `$pattern` (a Java regular expression of the forms on
// word boundaries) counted in each chunk with apoc.text.regexGroups. Overlapping chunks may
// count a mention twice. One row per document, most mentions first; its `$per` chunks with
// the most mentions.
// params: $query, $pattern, $fetch, $per, $corpus, $labels, $exclude, $from, $to, $about, $scope
// returns: documentId, title, uri, mentions, matchingChunks, chunks ({id, text, index, mentions})
CALL db.index.fulltext.queryNodes('chunk_text', $query, {limit: $fetch}) YIELD node AS c
WITH c WHERE c.text IS NOT NULL
MATCH (c)-[:FROM_DOCUMENT]->(d:Document)
WHERE ($corpus IS NULL OR d.corpus = $corpus) AND ($scope IS NULL OR d.corpus IN $scope)
  AND ($labels IS NULL OR any(l IN labels(d) WHERE l IN $labels))
  AND none(l IN labels(d) WHERE l IN $exclude)
  AND ($from IS NULL OR d.date >= $from)
  AND ($to IS NULL OR d.date <= $to)
  AND ($about IS NULL OR EXISTS { (c)-[:MENTIONS]->(a:__Entity__) WHERE a.id IN $about })
WITH d, c, size(apoc.text.regexGroups(c.text, $pattern)) AS n
WHERE n > 0
WITH d, c, n ORDER BY n DESC, c.index, c.id
WITH d, sum(n) AS mentions, collect({id: c.id, text: c.text, index: c.index, mentions: n}) AS chunks
RETURN d.id AS documentId, d.title AS title, d.uri AS uri, mentions, size(chunks) AS matchingChunks,
       chunks[..$per] AS chunks
ORDER BY mentions DESC, toLower(coalesce(d.title, d.id)), d.id
