// Titled documents (entity documents left out) whose chunks were never linked to their current
// title: new ones, and renamed ones (`titleLinked`: the title they were last linked under).
// params: none
// returns: id, title, linked
MATCH (d:Document)
WHERE d.title IS NOT NULL AND NOT d:EntityDocument AND coalesce(d.titleLinked, '') <> d.title
RETURN d.id AS id, d.title AS title, d.titleLinked AS linked
ORDER BY id
