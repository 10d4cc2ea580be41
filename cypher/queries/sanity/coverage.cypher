// Per document: chunks, chunks that mention a place, distinct places, place links, and
// how many of those places are aligned with Wikidata.
// params: $corpus
// returns: id, title, corpus, chunks, chunksWithPlaces, places, links, wikidataPlaces
MATCH (d:Document)
WHERE $corpus IS NULL OR d.corpus = $corpus
CALL (d) {
  MATCH (c:Chunk)-[:FROM_DOCUMENT]->(d)
  OPTIONAL MATCH (c)-[m:MENTIONS]->(p:Place)
  RETURN count(DISTINCT c) AS chunks, count(DISTINCT CASE WHEN p IS NOT NULL THEN c END) AS chunksWithPlaces,
         count(DISTINCT p) AS places, count(m) AS links,
         count(DISTINCT CASE WHEN EXISTS { (p)-[:SAME_AS]->(:WikidataEntity) } THEN p END) AS wikidataPlaces
}
RETURN d.id AS id, d.title AS title, d.corpus AS corpus, chunks, chunksWithPlaces, places, links, wikidataPlaces
ORDER BY id
