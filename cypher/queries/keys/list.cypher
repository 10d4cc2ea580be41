// Every API key, oldest first: what it may do, never its hash.
// params: (none)
// returns: name, corpora, rights, rpm, jobs, created, revoked
MATCH (k:__ApiKey)
RETURN k.name AS name, k.corpora AS corpora, k.rights AS rights, k.rpm AS rpm, k.jobs AS jobs,
       toString(k.created) AS created, k.revoked AS revoked, toString(k.revokedAt) AS revokedAt
ORDER BY k.created, k.name
