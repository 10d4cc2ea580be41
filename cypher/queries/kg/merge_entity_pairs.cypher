// Merge duplicate entities into the one kept: relationships move over (duplicates merged),
// the merged entity's name and aliases become aliases, its id is remembered in mergedIds.
// params: $rows
// returns: merged
UNWIND $rows AS row
MATCH (k:__Entity__ {id: row.keep})
MATCH (m:__Entity__ {id: row.merge})
WITH k, m, coalesce(k.aliases, []) + [m.name] + coalesce(m.aliases, []) AS aliases,
     coalesce(k.mergedIds, []) + [m.id] + coalesce(m.mergedIds, []) AS merged,
     properties(k) AS kept
CALL apoc.refactor.mergeNodes([k, m], {properties: 'discard', mergeRels: true}) YIELD node
SET node = kept
SET node.aliases = [a IN apoc.coll.toSet(aliases) WHERE a <> node.name],
    node.mergedIds = apoc.coll.toSet(merged)
RETURN count(node) AS merged
