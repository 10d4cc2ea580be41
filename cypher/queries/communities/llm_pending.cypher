// Communities without an LLM report by $model, with what the prompt is made of: the extractive
// report and the text of up to $chunks member chunks (the representative ones first).
// params: $model, $chunks
// returns: id, summary, chunks (each {id, text})
MATCH (c:Community)
WHERE c.llmModel IS NULL OR c.llmModel <> $model
WITH c, coalesce(c.sentenceChunks, []) AS first
RETURN c.id AS id, c.summary AS summary,
       COLLECT {
         MATCH (m:Chunk)-[:IN_COMMUNITY]->(c)
         RETURN {id: m.id, text: m.text} AS chunk
         ORDER BY CASE WHEN m.id IN first THEN 0 ELSE 1 END, m.id
         LIMIT $chunks
       } AS chunks
ORDER BY c.level, c.id
