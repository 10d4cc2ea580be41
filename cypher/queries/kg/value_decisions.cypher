// What earlier runs decided about the names infobox values give: the type an LLM validated
// for an entity known only as a value (`extract --validate`), and the entity merged names
// now belong to (`resolve`: its mergedIds).
// params: $schema
// returns: id, type, validated, mergedIds
MATCH (e:__Entity__)
WHERE e.schema = $schema
  AND (e.mergedIds IS NOT NULL OR (e.typedBy = 'relation' AND e.validatedBy IS NOT NULL))
RETURN e.id AS id, e.type AS type, (e.typedBy = 'relation' AND e.validatedBy IS NOT NULL) AS validated,
       coalesce(e.mergedIds, []) AS mergedIds
