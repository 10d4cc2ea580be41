// How many MENTIONS edges a linker has in the graph.
// params: $linker
// returns: total
MATCH (:Chunk)-[m:MENTIONS]->(:__Entity__)
WHERE m.linker = $linker
RETURN count(m) AS total
