// The key a bearer token's hash belongs to, if it is not revoked.
// params: $hash
// returns: name, corpora, rights, rpm, jobs
MATCH (k:__ApiKey {hash: $hash})
WHERE NOT coalesce(k.revoked, false)
RETURN k.name AS name, k.corpora AS corpora, k.rights AS rights, k.rpm AS rpm, k.jobs AS jobs
