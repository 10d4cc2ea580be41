// How many title mentions exist.
// params: none
// returns: total
MATCH (:Chunk)-[m:MENTIONS {source: 'title'}]->(:__Entity__)
RETURN count(m) AS total
