// Revoke a key by name (it stays listed, marked revoked; its hash no longer lets anyone in).
// params: $name
// returns: name, was_revoked
MATCH (k:__ApiKey {name: $name})
WITH k, k.revoked AS was_revoked
SET k.revoked = true, k.revokedAt = coalesce(k.revokedAt, datetime())
RETURN k.name AS name, was_revoked
