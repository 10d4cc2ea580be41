// Remove every MENTIONS edge a linker made (benchmarks: a run from an empty graph).
// params: $linker
// returns: removed
MATCH (:Chunk)-[m:MENTIONS]->(:__Entity__)
WHERE m.linker = $linker
DELETE m
RETURN count(m) AS removed
