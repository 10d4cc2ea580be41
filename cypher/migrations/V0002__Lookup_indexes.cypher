// Range indexes for the lookups loaders and linkers do on every run:
// content hashes (dedup, incremental re-learning), corpus filters, dates, entity names.
CREATE INDEX document_content_hash IF NOT EXISTS
FOR (d:Document) ON (d.contentHash);

CREATE INDEX document_corpus IF NOT EXISTS
FOR (d:Document) ON (d.corpus);

CREATE INDEX document_date IF NOT EXISTS
FOR (d:Document) ON (d.date);

CREATE INDEX chunk_content_hash IF NOT EXISTS
FOR (c:Chunk) ON (c.contentHash);

CREATE INDEX entity_norm_name IF NOT EXISTS
FOR (e:__Entity__) ON (e.normName);

CREATE INDEX place_geoname_id IF NOT EXISTS
FOR (p:Place) ON (p.geonameId);
