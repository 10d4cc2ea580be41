// Upsert typed entities. `row.type` has passed the schema's allowlist and becomes a label
// by Cypher's dynamic-label syntax; other schema labels left from an earlier typing are
// removed. An implied row (an entity known only as the end of a relation) never retypes
// an entity that has a type already, and a type the LLM validated (validatedBy) is kept.
// Aliases accumulate.
// params: $rows, $schemaLabels
// returns: entities
UNWIND $rows AS row
MERGE (e:__Entity__ {id: row.id})
WITH e, row
CALL (e, row) {
  WITH e, row
  WHERE (NOT row.implied OR e.type IS NULL OR e.type = row.type) AND e.validatedBy IS NULL
  WITH e, row, [l IN labels(e) WHERE l IN $schemaLabels AND l <> row.type] AS stale
  SET e += row.props, e.type = row.type
  SET e:$(row.type)
  REMOVE e:$(stale)
}
SET e.aliases = CASE WHEN size(row.aliases) = 0 THEN e.aliases
                     ELSE [a IN coalesce(e.aliases, []) WHERE NOT a IN row.aliases] + row.aliases END
RETURN count(e) AS entities
