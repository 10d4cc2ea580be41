// Provenance from text to entities: (Chunk)-[:MENTIONS]->(entity) for every chunk of the
// document whose text contains the entity's name (else the document's first chunk), and
// with `row.fromChunk` also (entity)-[:FROM_CHUNK]->(chunk) as neo4j-graphrag does.
// params: $rows
// returns: mentions
UNWIND $rows AS row
MATCH (e:__Entity__ {id: row.entityId})
MATCH (d:Document {id: row.documentId})<-[:FROM_DOCUMENT]-(c:Chunk)
WITH row, e, c ORDER BY c.index
WITH row, e, collect(c) AS chunks
WITH row, e, chunks, [c IN chunks WHERE toLower(c.text) CONTAINS toLower(row.name)] AS hits
UNWIND (CASE WHEN size(hits) > 0 THEN hits ELSE chunks[0..1] END) AS c
MERGE (c)-[m:MENTIONS]->(e)
ON CREATE SET m.at = datetime(), m.rule = row.rule, m.source = row.source, m.matched = row.name
FOREACH (_ IN CASE WHEN row.fromChunk THEN [1] ELSE [] END | MERGE (e)-[:FROM_CHUNK]->(c))
RETURN count(*) AS mentions
