// What places/names would return, fingerprinted without sending it: the number of places
// and an MD5 over exactly what the linker reads of each one (id, names, point, title,
// description, source, types), so any change — a load, an extracted place, a deletion, a
// hand edit in Neo4j Browser — shows.
// params: $sources
// returns: places, fingerprint
MATCH (p:Place)
WHERE p.id IS NOT NULL AND ($sources IS NULL OR p.source IN $sources)
  AND coalesce(p.typedBy, '') <> 'ner'  // the recogniser's own guesses are no gazetteer
RETURN count(p) AS places,
       apoc.util.md5(collect(p.id + '\u001e' + apoc.text.join(coalesce(p.names, [p.name], []), '\u001f') + '\u001e'
                                  + coalesce(toString(p.lat), '') + ' ' + coalesce(toString(p.lon), '') + '\u001e'
                                  + coalesce(p.title, '') + '\u001e' + coalesce(p.description, '') + '\u001e'
                                  + coalesce(p.source, '') + '\u001e' + apoc.text.join(coalesce(p.placeTypes, []), '\u001f')
                                  + '\n')) AS fingerprint
