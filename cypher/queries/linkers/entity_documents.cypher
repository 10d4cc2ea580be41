// The documents of $corpus (all when null) whose chunks have one of $linker's edges to the entities $ids.
// params: $ids, $linker, $corpus
// returns: ids
UNWIND $ids AS id
MATCH (e:__Entity__ {id: id})<-[m:MENTIONS]-(:Chunk)-[:FROM_DOCUMENT]->(d:Document)
WHERE m.linker = $linker AND ($corpus IS NULL OR d.corpus = $corpus)
RETURN collect(DISTINCT d.id) AS ids
