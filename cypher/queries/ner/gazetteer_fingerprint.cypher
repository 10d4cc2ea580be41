// What ner/gazetteer_names would return, fingerprinted without sending it: the entities and an
// MD5 over exactly what the recogniser reads of each (id, type, names), so a load, a resolve or a
// hand edit shows and the recogniser's patterns (and every chunk's checkpoint) follow.
// params: $types
// returns: entities, fingerprint
MATCH (e:__Entity__)
WHERE e.id IS NOT NULL AND any(l IN labels(e) WHERE l IN $types)
  AND NOT coalesce(e.source, '') STARTS WITH 'ner:' AND coalesce(e.scope, 'global') = 'global'
WITH e, [l IN labels(e) WHERE l IN $types][0] AS type,
     [n IN coalesce(e.names, []) + [e.name] + coalesce(e.aliases, []) WHERE n IS NOT NULL] AS names
ORDER BY e.id
RETURN count(e) AS entities,
       apoc.util.md5(collect(e.id + '\u001e' + type + '\u001e' + apoc.text.join(names, '\u001f') + '\n')) AS fingerprint
