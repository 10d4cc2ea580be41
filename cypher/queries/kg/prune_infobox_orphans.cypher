// Entities known only as infobox values that no edge names any more ("Near Meereen" once the
// edge goes to Meereen); an entity an LLM validated stays.
// params: $ids, $source
// returns: removed
UNWIND $ids AS id
MATCH (e:__Entity__ {id: id})
WHERE e.typedBy = 'relation' AND e.source = $source AND e.validatedBy IS NULL
  AND NOT EXISTS { (e)-[r]-() WHERE NOT type(r) IN ['MENTIONS', 'FROM_CHUNK'] }
DETACH DELETE e
RETURN count(*) AS removed
