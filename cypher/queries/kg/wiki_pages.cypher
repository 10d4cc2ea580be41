// Wiki pages with an infobox, for the infobox extractor.
// params: $corpus
// returns: id, title, infoboxType, infobox, aliases, categories
MATCH (d:Document:WikiPage)
WHERE d.infoboxType IS NOT NULL AND ($corpus IS NULL OR d.corpus = $corpus)
RETURN d.id AS id, d.title AS title, d.infoboxType AS infoboxType, d.infobox AS infobox,
       coalesce(d.aliases, []) AS aliases, coalesce(d.categories, []) AS categories
ORDER BY d.id
