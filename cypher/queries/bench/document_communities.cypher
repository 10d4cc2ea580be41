// How many chunks of each document of a corpus each community holds, per level (a document's
// majority community is chosen in bench/communities.py).
// params: $corpus
// returns: doc, level, community, chunks
MATCH (d:Document {corpus: $corpus})<-[:FROM_DOCUMENT]-(c:Chunk)-[r:IN_COMMUNITY]->(m:Community)
RETURN d.id AS doc, r.level AS level, m.id AS community, count(c) AS chunks
