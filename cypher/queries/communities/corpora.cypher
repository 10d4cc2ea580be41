// The corpora communities are built for one by one (`communities build --by-corpus`): each
// document corpus ('' for documents of no corpus) with its chunks and how many are embedded.
// params: none
// returns: corpus, chunks, embedded
MATCH (c:Chunk)-[:FROM_DOCUMENT]->(d:Document)
WITH coalesce(d.corpus, '') AS corpus, count(c) AS chunks, count(c.embedding) AS embedded
RETURN corpus, chunks, embedded
ORDER BY corpus
