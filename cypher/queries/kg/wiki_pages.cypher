// Wiki pages for the wiki extractor: those with an infobox, and the main-namespace pages
// without one (typed by title, categories and first sentence); with the start of the page's
// text (`lead`, from its first chunk), the targets of the infobox's links whose text differs
// (`infoboxLinks`: field -> text -> page) and the type the LLM validated for the entity a page
// describes in this schema (`extract --validate`), which wins over the heuristics.
// params: $corpus, $schema
// returns: id, title, infoboxType, infobox, infoboxLinks, aliases, categories, lead, validatedType
MATCH (d:Document:WikiPage)
WHERE (d.infoboxType IS NOT NULL OR coalesce(d.namespace, 0) = 0) AND ($corpus IS NULL OR d.corpus = $corpus)
OPTIONAL MATCH (c:Chunk {id: d.id + '::0'})
RETURN d.id AS id, d.title AS title, d.infoboxType AS infoboxType, d.infobox AS infobox, d.infoboxLinks AS infoboxLinks,
       coalesce(d.aliases, []) AS aliases, coalesce(d.categories, []) AS categories, left(c.text, 900) AS lead,
       head([(d)-[:DESCRIBES]->(e:__Entity__) WHERE e.schema = $schema AND e.validatedBy IS NOT NULL | e.type])
         AS validatedType
ORDER BY d.id
