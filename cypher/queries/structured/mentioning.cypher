// Every document of the scope that mentions a term: chunks whose text holds it on word
// boundaries (a full-text shortlist over the whole corpus, then `$pattern`, a case-insensitive
// regular expression), and chunks linked to the entities `$ids` by MENTIONS. One row per document.
// params: $query (escaped by the caller; '' finds no text), $pattern, $ids, $corpus, $labels, $exclude, $from, $to, $fetch, $about (ids: only chunks that MENTION one), $scope
// returns: documentId, title, uri, date, chunks, chunkId, text, via
CALL (*) {
  WITH $query AS query WHERE query <> ''  // a term with no searchable word: links only
  CALL db.index.fulltext.queryNodes('chunk_text', query, {limit: $fetch}) YIELD node AS c
  WITH c WHERE c.text =~ $pattern
  RETURN c, 'text' AS via
  UNION
  UNWIND $ids AS eid
  MATCH (c:Chunk)-[:MENTIONS]->(:__Entity__ {id: eid})
  RETURN c, 'link' AS via
}
MATCH (c)-[:FROM_DOCUMENT]->(d:Document)
WHERE ($about IS NULL OR EXISTS { (c)-[:MENTIONS]->(a:__Entity__) WHERE a.id IN $about })
  AND ($corpus IS NULL OR d.corpus = $corpus) AND ($scope IS NULL OR d.corpus IN $scope)
  AND ($labels IS NULL OR any(l IN labels(d) WHERE l IN $labels))
  AND none(l IN labels(d) WHERE l IN $exclude)
  AND ($from IS NULL OR d.date >= $from)
  AND ($to IS NULL OR d.date <= $to)
WITH d, c, collect(DISTINCT via) AS vias ORDER BY c.index
WITH d, collect(c) AS chunks, reduce(s = [], v IN collect(vias) | s + [x IN v WHERE NOT x IN s]) AS via
RETURN d.id AS documentId, d.title AS title, d.uri AS uri, d.date AS date, size(chunks) AS chunks,
       chunks[0].id AS chunkId, chunks[0].text AS text, via
ORDER BY toLower(coalesce(d.title, d.id)), d.id
