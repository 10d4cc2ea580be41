// The title linker's topics no chunk is about any more (no own-title edge: their documents were
// forgotten or renamed), after chunks were deleted.
// params: none
// returns: ids
MATCH (e:__Entity__)
WHERE e.source = 'title'
  AND NOT EXISTS { MATCH (e)<-[m:MENTIONS]-(:Chunk)
                   WHERE (m.source = 'title' AND m.rule = 'own-title') OR m.titleRule = 'own-title' }
RETURN collect(e.id) AS ids
