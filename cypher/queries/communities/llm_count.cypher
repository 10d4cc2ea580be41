// How many communities already have an LLM report by $model (kept: no request is made for them).
// params: $model
// returns: cached
MATCH (c:Community)
WHERE c.llmModel = $model
RETURN count(c) AS cached
