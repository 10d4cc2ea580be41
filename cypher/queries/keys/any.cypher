// Whether any key was ever made (revoked ones count: revoking every key does not reopen the server).
// params: (none)
// returns: keys
MATCH (k:__ApiKey)
RETURN count(k) AS keys
