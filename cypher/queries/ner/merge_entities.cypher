// The entities named in a batch of chunks, one row per (type, normName). A row's own id
// (`<type>:<normName>`, e.g. person:sebastian heath, shared with the authors of documents) is
// used when it exists; else the one global entity of that normName and type label that is
// already in the graph (a gazetteer place, a wiki character, a canonical LLM entity); else
// the row's id is created. Two or more such entities make the name ambiguous: the row's own
// entity is created rather than a guess. `row.type` has passed the schema's allowlist. An entity
// the recogniser created carries the confidence of its type or rule (`row.confidence`, the
// highest given it); an entity it did not create gets none from it.
// params: $rows, $source, $schema
// returns: id, entityId, created
UNWIND $rows AS row
OPTIONAL MATCH (own:__Entity__ {id: row.id})
CALL (row, own) {
  OPTIONAL MATCH (known:__Entity__ {normName: row.normName})
  WHERE own IS NULL AND known.id <> row.id AND row.type IN labels(known)
    AND coalesce(known.scope, 'global') = 'global'
  RETURN collect(known.id) AS known
}
WITH row, own, CASE WHEN own IS NULL AND size(known) = 1 THEN known[0] END AS knownId
CALL (row, own, knownId) {
  WITH row WHERE own IS NULL AND knownId IS NULL
  MERGE (e:__Entity__ {id: row.id})
  ON CREATE SET e.name = row.name, e.normName = row.normName, e.type = row.type, e.scope = 'global',
                e.source = $source, e.schema = $schema, e.typedBy = 'ner', e.createdAt = datetime()
  SET e:$(row.type)
  FOREACH (_ IN CASE WHEN e.source STARTS WITH 'ner:' AND row.confidence IS NOT NULL
                      AND coalesce(e.confidence, -1.0) < row.confidence THEN [1] ELSE [] END |
    SET e.confidence = row.confidence)
  RETURN count(e) AS created
}
FOREACH (_ IN CASE WHEN own IS NOT NULL AND own.source STARTS WITH 'ner:' AND row.confidence IS NOT NULL
                    AND coalesce(own.confidence, -1.0) <> row.confidence THEN [1] ELSE [] END |
  SET own.confidence = row.confidence)
RETURN row.id AS id, coalesce(knownId, row.id) AS entityId, created > 0 AS created
