// The topics stored on documents $ids (those that exist): what a topic learned from the web adds to.
// params: $ids
// returns: id, topics
MATCH (d:Document)
WHERE d.id IN $ids
RETURN d.id AS id, coalesce(d.topics, []) AS topics
