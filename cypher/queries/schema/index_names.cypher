// Every index except the token lookups Neo4j keeps for itself (for `graphrag schema clean`).
// params: none
// returns: name
SHOW INDEXES YIELD name, type
WHERE type <> 'LOOKUP'
RETURN name
ORDER BY name
