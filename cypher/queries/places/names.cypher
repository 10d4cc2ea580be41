// The names the place linker looks for: every place of the chosen gazetteer(s) with its
// matchable names and representative point [lat, lon] (for disambiguation by context), as
// parallel lists in one row: 41k places decode far faster as lists than as 41k records.
// (Each item is a list, never null, so that collect() keeps the lists aligned.) With them,
// the fingerprint of these very places, as places/fingerprint.cypher computes it.
// params: $sources
// returns: ids, names, points, fingerprint
MATCH (p:Place)
WHERE p.id IS NOT NULL AND ($sources IS NULL OR p.source IN $sources)
RETURN collect(p.id) AS ids, collect(coalesce(p.names, [p.name])) AS names, collect([p.lat, p.lon]) AS points,
       apoc.util.md5(collect(p.id + '\u001e' + apoc.text.join(coalesce(p.names, [p.name], []), '\u001f') + '\u001e'
                                  + coalesce(toString(p.lat), '') + ' ' + coalesce(toString(p.lon), '') + '\n')) AS fingerprint
