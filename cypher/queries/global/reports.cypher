// The reports of the communities `$ids` (the extractive summary, and the LLM-written one when
// `communities build --llm-reports` wrote it): what a map request reads about each community.
// params: $ids, $scope
// $scope: the corpora of the key asking (null: every corpus): a community with members of any other corpus
// is not read.
// returns: id, title, phrases, summary, llmReport
UNWIND $ids AS cid
MATCH (m:Community {id: cid})
WHERE ($scope IS NULL OR (size(coalesce(m.corpora, [])) > 0 AND all(x IN m.corpora WHERE x IN $scope)))
RETURN m.id AS id, m.title AS title, coalesce(m.phrases, []) AS phrases, m.summary AS summary,
       m.llmReport AS llmReport
