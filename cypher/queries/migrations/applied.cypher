// Every migration recorded in the graph.
// params: none
// returns: version, description, type, file, checksum, resolvedChecksum, appliedAt
MATCH (m:__Migration)
RETURN m.version AS version, m.description AS description, m.type AS type, m.file AS file,
       m.checksum AS checksum, m.resolvedChecksum AS resolvedChecksum,
       toString(m.appliedAt) AS appliedAt
ORDER BY m.type DESC, m.version
