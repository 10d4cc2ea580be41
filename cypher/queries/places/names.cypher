// The names the place linker looks for: every place of the chosen gazetteer(s) with its
// matchable names, representative point [lat, lon] and what the decision reads of it
// [title, first 200 characters of the description, source, placeTypes], as parallel lists in one row: 41k places decode
// far faster as lists than as 41k records. (Each item is a list, never null, so that
// collect() keeps the lists aligned.) With them, the fingerprint of these very places, as
// places/fingerprint.cypher computes it.
// params: $sources
// returns: ids, names, points, profiles, fingerprint
MATCH (p:Place)
WHERE p.id IS NOT NULL AND ($sources IS NULL OR p.source IN $sources)
  AND coalesce(p.typedBy, '') <> 'ner'  // the recogniser's own guesses are no gazetteer
RETURN collect(p.id) AS ids, collect(coalesce(p.names, [p.name])) AS names, collect([p.lat, p.lon]) AS points,
       collect([coalesce(p.title, p.name), left(p.description, 200), p.source, coalesce(p.placeTypes, [])]) AS profiles,
       apoc.util.md5(collect(p.id + '\u001e' + apoc.text.join(coalesce(p.names, [p.name], []), '\u001f') + '\u001e'
                                  + coalesce(toString(p.lat), '') + ' ' + coalesce(toString(p.lon), '') + '\u001e'
                                  + coalesce(p.title, '') + '\u001e' + coalesce(p.description, '') + '\u001e'
                                  + coalesce(p.source, '') + '\u001e' + apoc.text.join(coalesce(p.placeTypes, []), '\u001f')
                                  + '\n')) AS fingerprint
