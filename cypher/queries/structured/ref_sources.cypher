// Where the nodes a text-to-Cypher row names come from: a chunk's document, a document itself,
// an entity's own document (a page that describes it, its story, its entity document) with its
// first chunk, else the record an entity was loaded from.
// params: $ids
// returns: id, name, documentId, title, uri, chunkId, text, recordSource
UNWIND $ids AS rid
MATCH (n {id: rid})
WHERE n:Chunk OR n:Document OR n:__Entity__
OPTIONAL MATCH (n)-[:FROM_DOCUMENT]->(cd:Document)
OPTIONAL MATCH (own:Document)
  WHERE n:__Entity__ AND own.id IN [n.documentId, 'entity:' + n.id]
WITH n, cd, own ORDER BY CASE WHEN own.id = n.documentId THEN 0 ELSE 1 END
WITH n, cd, head(collect(own)) AS own
WITH n, CASE WHEN n:Chunk THEN cd WHEN n:Document THEN n ELSE own END AS doc
OPTIONAL MATCH (first:Chunk)-[:FROM_DOCUMENT]->(doc) WHERE NOT n:Chunk
WITH n, doc, first ORDER BY first.index
WITH n, doc, head(collect(first)) AS first
WITH n, doc, CASE WHEN n:Chunk THEN n ELSE first END AS chunk
RETURN n.id AS id, coalesce(n.name, n.title, doc.title) AS name, doc.id AS documentId, doc.title AS title,
       doc.uri AS uri, chunk.id AS chunkId, chunk.text AS text,
       CASE WHEN n:__Entity__ THEN n.source END AS recordSource
