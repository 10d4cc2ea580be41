// What the recogniser's mentions point at now, by type: entities and MENTIONS edges (rule ner).
// params: $corpus
// returns: type, entities, mentions
MATCH (d:Document)<-[:FROM_DOCUMENT]-(:Chunk)-[m:MENTIONS {rule: 'ner'}]->(e:__Entity__)
WHERE $corpus IS NULL OR d.corpus = $corpus
RETURN e.type AS type, count(DISTINCT e) AS entities, count(m) AS mentions
ORDER BY type
