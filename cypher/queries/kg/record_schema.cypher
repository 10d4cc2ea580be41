// Remember a schema's relation types, their directions and question phrases, and its entity
// types with their descriptions, in the graph, so questions about its relations are understood
// whatever file the schema came from.
// params: $name, $relations (JSON), $types (JSON: entity type -> description), $where
// returns: name
MERGE (s:__Schema {name: $name})
SET s.relations = $relations, s.types = $types, s.path = $where, s.updatedAt = coalesce(s.updatedAt, datetime())
RETURN s.name AS name
