// What places/names would return, fingerprinted without sending it: the number of places
// and an MD5 over each one's id and content hash (which the loaders set from all of a
// place's properties); a place written without one (an extracted entity typed Place)
// contributes its names and point instead. CASE, not coalesce: only it skips the JSON.
// params: $sources
// returns: places, fingerprint
MATCH (p:Place)
WHERE p.id IS NOT NULL AND ($sources IS NULL OR p.source IN $sources)
RETURN count(p) AS places,
       apoc.util.md5(collect(p.id + ' ' + CASE WHEN p.contentHash IS NOT NULL THEN p.contentHash
                                               ELSE apoc.convert.toJson([coalesce(p.names, [p.name]), p.lat, p.lon])
                                          END + '\n')) AS fingerprint
