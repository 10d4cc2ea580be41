// What the recogniser's mentions point at now, by type: entities and MENTIONS edges (rule ner,
// or ner-gazetteer where the graph's gazetteer decided the entity).
// params: $corpus
// returns: type, entities, mentions
MATCH (d:Document)<-[:FROM_DOCUMENT]-(:Chunk)-[m:MENTIONS]->(e:__Entity__)
WHERE m.rule IN ['ner', 'ner-gazetteer'] AND ($corpus IS NULL OR d.corpus = $corpus)
RETURN e.type AS type, count(DISTINCT e) AS entities, count(m) AS mentions
ORDER BY type
