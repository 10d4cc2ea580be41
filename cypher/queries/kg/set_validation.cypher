// The LLM's verdict on heuristic types, and the validation checkpoint. `row.type` has
// passed the schema's allowlist; a retyped entity loses its other schema labels.
// params: $rows, $schemaLabels
// returns: validated
UNWIND $rows AS row
MATCH (e:__Entity__ {id: row.id})
WITH e, row, [l IN labels(e) WHERE l IN $schemaLabels AND l <> row.type] AS stale
SET e.type = row.type, e.validatedBy = row.validatedBy, e.validation = row.verdict,
    e.validationReason = row.reason, e.needsReview = false,
    e.confidence = CASE WHEN row.verdict = 'confirmed' THEN 'Medium' ELSE e.confidence END
SET e:$(row.type)
REMOVE e:$(stale)
RETURN count(e) AS validated
