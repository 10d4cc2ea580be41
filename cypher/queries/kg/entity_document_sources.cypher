// Entities to render as entity documents, a page at a time in id order (keyset paging):
// their properties, and their relations to other entities in both directions with the other
// entity's name and type (at most $maxRelations each way, in a fixed order; the totals too).
// With $corpus, only entities that a document of that corpus describes or whose chunks
// mention them (entity documents themselves do not count). $types selects by type or label;
// $excludeTypes leaves types out (both compare strings, nothing becomes Cypher text).
// `corpora`: the corpora of the documents that describe or mention the entity.
// params: $after, $limit, $corpus, $types, $excludeTypes, $maxRelations
// returns: id, name, type, labels, props, corpora, outgoing, incoming, outgoingTotal, incomingTotal
MATCH (e:__Entity__)
WHERE e.id > $after
  AND (size($types) = 0 OR e.type IN $types OR any(l IN labels(e) WHERE l IN $types))
  AND NOT coalesce(e.type, '') IN $excludeTypes
  AND ($corpus IS NULL
       OR EXISTS { (e)<-[:DESCRIBES]-(d:Document) WHERE d.corpus = $corpus AND NOT d:EntityDocument }
       OR EXISTS { (e)<-[:MENTIONS]-(:Chunk)-[:FROM_DOCUMENT]->(d:Document)
                   WHERE d.corpus = $corpus AND NOT d:EntityDocument })
WITH e ORDER BY e.id LIMIT $limit
CALL (e) {
  RETURN COLLECT {
    MATCH (e)<-[:DESCRIBES]-(d:Document) WHERE d.corpus IS NOT NULL AND NOT d:EntityDocument RETURN d.corpus AS corpus
    UNION
    MATCH (e)<-[:MENTIONS]-(:Chunk)-[:FROM_DOCUMENT]->(d:Document)
    WHERE d.corpus IS NOT NULL AND NOT d:EntityDocument
    RETURN d.corpus AS corpus
  } AS corpora
}
CALL (e) {
  OPTIONAL MATCH (e)-[r]->(o:__Entity__)
  WITH r, o ORDER BY type(r), coalesce(o.name, o.id), o.id
  WITH [x IN collect(CASE WHEN r IS NULL THEN NULL ELSE {type: type(r), id: o.id, name: coalesce(o.name, o.id),
                                                       otherType: o.type, description: r.description} END)
        WHERE x IS NOT NULL] AS rels
  RETURN rels[0..$maxRelations] AS outgoing, size(rels) AS outgoingTotal
}
CALL (e) {
  OPTIONAL MATCH (e)<-[r]-(o:__Entity__)
  WITH r, o ORDER BY type(r), coalesce(o.name, o.id), o.id
  WITH [x IN collect(CASE WHEN r IS NULL THEN NULL ELSE {type: type(r), id: o.id, name: coalesce(o.name, o.id),
                                                       otherType: o.type, description: r.description} END)
        WHERE x IS NOT NULL] AS rels
  RETURN rels[0..$maxRelations] AS incoming, size(rels) AS incomingTotal
}
RETURN e.id AS id, e.name AS name, e.type AS type, labels(e) AS labels, properties(e) AS props, corpora,
       outgoing, incoming, outgoingTotal, incomingTotal
ORDER BY e.id
