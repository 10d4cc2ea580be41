// One page of the title linker's topics in id order after $after, as parallel lists: id, name, normName.
// params: $after, $limit
// returns: ids, names, normNames
MATCH (e:__Entity__)
WHERE e.id > $after AND e.source = 'title'
WITH e ORDER BY e.id LIMIT $limit
RETURN collect(e.id) AS ids, collect(coalesce(e.name, '')) AS names, collect(coalesce(e.normName, '')) AS normNames
