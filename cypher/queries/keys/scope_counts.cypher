// What the MCP `schema` tool tells a key scoped to corpora: nodes per label and relationships per
// type counted inside its corpora only (their documents and chunks, the entities and phrases
// those name, and the edges among them), where `sanity/counts` reads the whole graph's count store.
// params: $scope (a list of corpora)
// returns: labels, relationships
MATCH (d:Document) WHERE d.corpus IN $scope
OPTIONAL MATCH (c:Chunk)-[:FROM_DOCUMENT]->(d)
WITH collect(DISTINCT d) AS docs, collect(DISTINCT c) AS chunks
CALL (chunks) {
  UNWIND chunks AS c
  OPTIONAL MATCH (c)-[r]->(x) WHERE x:__Entity__ OR x:Phrase
  RETURN collect(DISTINCT x) AS named, collect(DISTINCT type(r)) AS types, count(r) AS edges,
         collect(type(r)) AS each
}
WITH docs + chunks + named AS nodes, each, chunks
UNWIND nodes AS n
UNWIND labels(n) AS label
WITH label, count(*) AS n, each, size(chunks) AS chunkCount
WITH apoc.map.fromPairs(collect([label, n])) AS labels, each, chunkCount
RETURN labels,
       apoc.map.merge(apoc.map.fromPairs([t IN apoc.coll.toSet(each) | [t, size([x IN each WHERE x = t])]]),
                      {FROM_DOCUMENT: chunkCount}) AS relationships
