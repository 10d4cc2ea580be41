// A new API key (`graphrag keys add`): only its SHA-256 hash is stored, never the key. A name
// that exists already (revoked ones too) returns no row.
// params: $name, $hash, $corpora (null: every corpus), $rights, $rpm, $jobs
// returns: name
OPTIONAL MATCH (old:__ApiKey {name: $name})
WITH old WHERE old IS NULL
CREATE (k:__ApiKey {name: $name, hash: $hash, rights: $rights, created: datetime(), revoked: false})
SET k.corpora = $corpora, k.rpm = $rpm, k.jobs = $jobs
RETURN k.name AS name
