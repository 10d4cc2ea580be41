// What a text-to-Cypher row may quote under a citation: the values of the nodes it names, read
// by id (strings, numbers, booleans and temporals as text, and the strings of string lists),
// with the title of the document a chunk comes from. A value the statement made up is not here.
// params: $ids, $scope
// $scope: the corpora of the key asking (null: every corpus): only entities they name, and relations read
// from their chunks or documents.
// returns: id, values
UNWIND $ids AS rid
MATCH (n {id: rid})
WHERE (n:Chunk OR n:Document OR n:__Entity__)
  AND ($scope IS NULL
       OR (n:Document AND n.corpus IN $scope)
       OR (n:Chunk AND EXISTS { (n)-[:FROM_DOCUMENT]->(sd:Document) WHERE sd.corpus IN $scope })
       OR (n:__Entity__ AND ($scope IS NULL
         OR EXISTS { (n)<-[:MENTIONS]-(:Chunk)-[:FROM_DOCUMENT]->(sd:Document) WHERE sd.corpus IN $scope }
         OR EXISTS { (n)-[:FROM_CHUNK]->(:Chunk)-[:FROM_DOCUMENT]->(sd:Document) WHERE sd.corpus IN $scope }
         OR EXISTS { (n)<-[:DESCRIBES]-(sd:Document) WHERE sd.corpus IN $scope }
         OR EXISTS { MATCH (sd:Document) WHERE sd.id = n.documentId AND sd.corpus IN $scope }
         OR EXISTS { (n)<-[:INSTANCE_OF]-(:__Entity__)<-[:MENTIONS]-(:Chunk)-[:FROM_DOCUMENT]->(sd:Document) WHERE sd.corpus IN $scope })))
OPTIONAL MATCH (n)-[:FROM_DOCUMENT]->(d:Document)
WITH n, head(collect(d.title)) AS title
WITH n, title,
     [k IN keys(n) WHERE n[k] IS :: STRING | INTEGER | FLOAT | BOOLEAN | DATE | LOCAL DATETIME | ZONED DATETIME
       | LOCAL TIME | ZONED TIME | DURATION | toString(n[k])] AS scalars,
     [k IN keys(n) WHERE n[k] IS :: LIST<STRING NOT NULL> | n[k]] AS lists
RETURN n.id AS id, scalars + reduce(acc = [], list IN lists | acc + list) + [x IN [title] WHERE x IS NOT NULL] AS values
