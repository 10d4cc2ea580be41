// Wikidata alignment: Pleiades places, those with a SAME_AS to a Wikidata item, items.
// params: none
// returns: pleiadesPlaces, alignedPlaces, wikidataEntities, sameAs
CALL () { MATCH (p:Place) WHERE p.pleiadesId IS NOT NULL RETURN count(p) AS pleiadesPlaces }
CALL () { MATCH (p:Place) WHERE EXISTS { (p)-[:SAME_AS]->(:WikidataEntity) } RETURN count(p) AS alignedPlaces }
CALL () { MATCH (w:WikidataEntity) RETURN count(w) AS wikidataEntities }
CALL () { MATCH (:Place)-[s:SAME_AS]->(:WikidataEntity) RETURN count(s) AS sameAs }
RETURN pleiadesPlaces, alignedPlaces, wikidataEntities, sameAs
