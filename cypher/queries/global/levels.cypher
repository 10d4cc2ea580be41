// The community levels the graph holds, with how many communities each has (none: no
// `graphrag communities build` has run).
// params: (none)
// returns: level, communities
MATCH (m:Community)
RETURN m.level AS level, count(*) AS communities
ORDER BY level
