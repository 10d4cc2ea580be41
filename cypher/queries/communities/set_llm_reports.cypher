// LLM-written reports of communities, with the model that wrote them.
// params: $rows (each {id, report}), $model
// returns: written
UNWIND $rows AS row
MATCH (c:Community {id: row.id})
SET c.llmReport = row.report, c.llmModel = $model
RETURN count(*) AS written
