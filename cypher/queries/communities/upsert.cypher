// New or changed communities with their extractive report; a changed one loses its LLM report
// (it is written again for the new content).
// params: $rows (each {id, props}: props holds level, size, chunks, entities, documents, corpora,
//         title, phrases, topEntities, topEntityIds, documentIds, sentences, sentenceChunks,
//         summary, embedding, membersHash, builtAt)
// returns: written
UNWIND $rows AS row
MERGE (c:Community {id: row.id})
SET c += row.props, c.llmReport = null, c.llmModel = null
RETURN count(*) AS written
