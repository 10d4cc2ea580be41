// Edges a page's infobox gave in an earlier run and no longer gives: each row is a page's
// entity, its document and the edges (source id|type|target id) this run built from it.
// params: $rows, $source
// returns: removed, others
UNWIND $rows AS row
MATCH (e:__Entity__ {id: row.entityId})-[r]-(o:__Entity__)
WHERE r.source = $source AND r.documentId = row.documentId
  AND NOT (startNode(r).id + '|' + type(r) + '|' + endNode(r).id) IN row.keep
WITH collect(r) AS stale, collect(DISTINCT o.id) AS others
FOREACH (r IN stale | DELETE r)
RETURN size(stale) AS removed, others
