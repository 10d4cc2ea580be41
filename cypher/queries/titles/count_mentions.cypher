// How many title mentions exist (the title linker's edges, those the entity linker made its own included).
// params: none
// returns: total
MATCH (:Chunk)-[m:MENTIONS]->(:__Entity__)
WHERE m.source = 'title' OR m.titleRule IS NOT NULL
RETURN count(m) AS total
