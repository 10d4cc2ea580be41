// The gazetteer of the recogniser: every global entity of a person or place type of the schema
// ($types) that the recogniser did not create itself (a Pleiades place, a record's person, an
// article's author, a wiki character, a canonical LLM entity), with all its names (Pleiades
// variants, resolve's aliases), as parallel lists in one row, in id order; with the fingerprint
// that ner/gazetteer_fingerprint computes over the very same.
// params: $types
// returns: ids, types, names, fingerprint
MATCH (e:__Entity__)
WHERE e.id IS NOT NULL AND any(l IN labels(e) WHERE l IN $types)
  AND NOT coalesce(e.source, '') STARTS WITH 'ner:' AND coalesce(e.scope, 'global') = 'global'
WITH e, [l IN labels(e) WHERE l IN $types][0] AS type,
     [n IN coalesce(e.names, []) + [e.name] + coalesce(e.aliases, []) WHERE n IS NOT NULL] AS names
ORDER BY e.id
RETURN collect(e.id) AS ids, collect(type) AS types, collect(names) AS names,
       apoc.util.md5(collect(e.id + '\u001e' + type + '\u001e' + apoc.text.join(names, '\u001f') + '\n')) AS fingerprint
