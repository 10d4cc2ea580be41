// Uniqueness constraints of the graph model (see DESIGN.md). Each also gives a range index.
CREATE CONSTRAINT document_id IF NOT EXISTS
FOR (d:Document) REQUIRE d.id IS UNIQUE;

CREATE CONSTRAINT chunk_id IF NOT EXISTS
FOR (c:Chunk) REQUIRE c.id IS UNIQUE;

CREATE CONSTRAINT entity_id IF NOT EXISTS
FOR (e:__Entity__) REQUIRE e.id IS UNIQUE;

CREATE CONSTRAINT place_pleiades_id IF NOT EXISTS
FOR (p:Place) REQUIRE p.pleiadesId IS UNIQUE;

CREATE CONSTRAINT wikidata_qid IF NOT EXISTS
FOR (w:WikidataEntity) REQUIRE w.qid IS UNIQUE;

CREATE CONSTRAINT migration_version IF NOT EXISTS
FOR (m:__Migration) REQUIRE m.version IS UNIQUE;
