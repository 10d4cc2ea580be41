// Every node (its labels and properties) and every relationship (its type, properties and
// the ids of its ends), for a fingerprint of the whole graph: two extractions compared.
// params: none
// returns: kind, labels, props, start, end
MATCH (n)
RETURN 'node' AS kind, labels(n) AS labels, properties(n) AS props, null AS start, null AS end
UNION ALL
MATCH (a)-[r]->(b)
RETURN 'relationship' AS kind, [type(r)] AS labels, properties(r) AS props,
       coalesce(a.id, elementId(a)) AS start, coalesce(b.id, elementId(b)) AS end
