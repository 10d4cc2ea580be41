// Wiki pages with an infobox, for the infobox extractor, with the type the LLM validated for
// the entity a page describes in this schema (`extract --validate`), which wins over the heuristics.
// params: $corpus, $schema
// returns: id, title, infoboxType, infobox, aliases, categories, validatedType
MATCH (d:Document:WikiPage)
WHERE d.infoboxType IS NOT NULL AND ($corpus IS NULL OR d.corpus = $corpus)
RETURN d.id AS id, d.title AS title, d.infoboxType AS infoboxType, d.infobox AS infobox,
       coalesce(d.aliases, []) AS aliases, coalesce(d.categories, []) AS categories,
       head([(d)-[:DESCRIBES]->(e:__Entity__) WHERE e.schema = $schema AND e.validatedBy IS NOT NULL | e.type])
         AS validatedType
ORDER BY d.id
