// The names the place linker looks for: every place of the chosen gazetteer(s) with its
// matchable names and representative point (for disambiguation by context).
// params: $sources
// returns: id, names, lat, lon
MATCH (p:Place)
WHERE p.id IS NOT NULL AND ($sources IS NULL OR p.source IN $sources)
RETURN p.id AS id, coalesce(p.names, [p.name]) AS names, p.lat AS lat, p.lon AS lon
