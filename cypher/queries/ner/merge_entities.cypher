// The entities named in a batch of chunks, one row per (type, normName). A row's own id
// (`<type>:<normName>`, e.g. person:sebastian heath, shared with the authors of documents) is
// used when it exists; else the one global entity of that normName and type label that is
// already in the graph (a gazetteer place, a wiki character, a canonical LLM entity); else
// the row's id is created. Two or more such entities make the name ambiguous: the row's own
// entity is created rather than a guess. `row.type` has passed the schema's allowlist.
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
  RETURN count(e) AS created
}
RETURN row.id AS id, coalesce(knownId, row.id) AS entityId, created > 0 AS created
