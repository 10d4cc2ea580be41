// API keys (`graphrag keys`): one :__ApiKey per name; the server finds a key by its hash.
CREATE CONSTRAINT api_key_name IF NOT EXISTS
FOR (k:__ApiKey) REQUIRE k.name IS UNIQUE;

CREATE CONSTRAINT api_key_hash IF NOT EXISTS
FOR (k:__ApiKey) REQUIRE k.hash IS UNIQUE;
