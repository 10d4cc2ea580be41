// The title linker's topics whose normName is one of $norms (the normalised word spans of a
// few chunks: the only titles those chunks can name), as parallel lists: id, name.
// params: $norms
// returns: ids, names
UNWIND $norms AS norm
MATCH (e:__Entity__ {normName: norm})
WHERE e.source = 'title'
RETURN collect(e.id) AS ids, collect(e.name) AS names
