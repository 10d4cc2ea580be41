// The chunks of documents $docIds, as parallel lists in one row: id, document, section, text,
// and whether the entity linker has yet to see it (:PendingEntities).
// params: $docIds
// returns: ids, docIds, sections, texts, pending
UNWIND $docIds AS docId
MATCH (c:Chunk)-[:FROM_DOCUMENT]->(d:Document {id: docId})
WITH c, d ORDER BY c.id
RETURN collect(c.id) AS ids, collect(d.id) AS docIds, collect(coalesce(c.section, '')) AS sections,
       collect(coalesce(c.text, '')) AS texts, collect(c:PendingEntities) AS pending
