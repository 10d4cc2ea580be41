// Every node (its labels and properties) and every relationship (its type, properties and
// the ids of its ends), for a fingerprint of the whole graph: two extractions compared. The
// audit (`:__Audit`) is left out: each run records itself, which is no change to the graph.
// params: none
// returns: kind, labels, props, start, end
MATCH (n) WHERE NOT n:__Audit
RETURN 'node' AS kind, labels(n) AS labels, properties(n) AS props, null AS start, null AS end
UNION ALL
MATCH (a)-[r]->(b)
RETURN 'relationship' AS kind, [type(r)] AS labels, properties(r) AS props,
       coalesce(a.id, elementId(a)) AS start, coalesce(b.id, elementId(b)) AS end
