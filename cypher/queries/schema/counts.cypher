// What `graphrag schema clean` is about to remove: nodes, relationships, migration records.
// params: none
// returns: nodes, relationships, migrations
RETURN COUNT { MATCH (n) } AS nodes, COUNT { MATCH ()-[r]->() } AS relationships,
       COUNT { MATCH (m:__Migration) } AS migrations
