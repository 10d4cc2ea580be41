// The reports of the communities `$ids` (the extractive summary, and the LLM-written one when
// `communities build --llm-reports` wrote it): what a map request reads about each community.
// params: $ids
// returns: id, title, phrases, summary, llmReport
UNWIND $ids AS cid
MATCH (m:Community {id: cid})
RETURN m.id AS id, m.title AS title, coalesce(m.phrases, []) AS phrases, m.summary AS summary,
       m.llmReport AS llmReport
