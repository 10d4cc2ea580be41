// What the recogniser found in a batch of chunks: per chunk, its MENTIONS (rule ner, or
// ner-gazetteer where the graph's gazetteer decided the entity; with the surface form, how often,
// at which character offsets and the confidence of the rule or type) and the FROM_CHUNK links
// back, in both directions as the other linkers write them; mentions the recogniser made before
// in this chunk that it no longer finds go, with their FROM_CHUNK. A mention another rule made
// keeps its rule and properties. Then the chunk's checkpoint.
// params: $rows, $source, $fingerprint
// returns: created, removed
UNWIND $rows AS row
MATCH (c:Chunk {id: row.chunkId})
CALL (c, row) {
  OPTIONAL MATCH (c)-[m:MENTIONS]->(e:__Entity__)
  WHERE m.rule IN ['ner', 'ner-gazetteer'] AND NOT e.id IN [x IN row.mentions | x.entityId]
  OPTIONAL MATCH (e)-[f:FROM_CHUNK]->(c)
  DELETE m, f
  RETURN count(m) AS removed
}
CALL (c, row) {
  UNWIND row.mentions AS x
  MATCH (e:__Entity__ {id: x.entityId})
  OPTIONAL MATCH (c)-[old:MENTIONS]->(e)
  MERGE (c)-[m:MENTIONS]->(e)
  ON CREATE SET m.rule = x.rule, m.source = $source, m.at = datetime()
  FOREACH (_ IN CASE WHEN m.rule IN ['ner', 'ner-gazetteer'] THEN [1] ELSE [] END |
    SET m.rule = x.rule, m.matched = x.matched, m.count = x.count, m.offsets = x.offsets, m.label = x.label,
        m.confidence = x.confidence)
  MERGE (e)-[:FROM_CHUNK]->(c)
  RETURN count(CASE WHEN old IS NULL THEN 1 END) AS created
}
SET c.nerBy = $fingerprint, c.nerHash = coalesce(c.contentHash, ''), c.nerAt = datetime()
RETURN sum(created) AS created, sum(removed) AS removed
