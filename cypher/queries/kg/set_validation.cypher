// The LLM's verdict on heuristic types, and the validation checkpoint. `row.type` has
// passed the schema's allowlist; a retyped entity loses its other schema labels. The
// confidence becomes the validated one (the heuristic's is kept as heuristicConfidence),
// and who decided it is recorded (confidenceBy, validatedBy, validatedAt).
// params: $rows, $schemaLabels
// returns: validated
UNWIND $rows AS row
MATCH (e:__Entity__ {id: row.id})
WITH e, row, [l IN labels(e) WHERE l IN $schemaLabels AND l <> row.type] AS stale
SET e.heuristicConfidence = coalesce(e.heuristicConfidence, e.confidence),
    e.heuristicType = CASE WHEN row.verdict = 'retyped' THEN coalesce(e.heuristicType, e.type) ELSE e.heuristicType END
SET e.type = row.type, e.validatedBy = row.validatedBy, e.validation = row.verdict,
    e.validationReason = row.reason, e.needsReview = false, e.validatedAt = datetime(),
    e.confidence = row.confidence, e.confidenceBy = row.validatedBy
SET e:$(row.type)
REMOVE e:$(stale)
RETURN count(e) AS validated
