// The `id` property of nodes named by element id: the ends of the relationships a
// text-to-Cypher statement returned without their nodes.
// params: $elementIds
// returns: elementId, id
MATCH (n)
WHERE elementId(n) IN $elementIds
RETURN elementId(n) AS elementId, n.id AS id
