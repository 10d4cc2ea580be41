// One page of titled documents (entity documents left out: they are about their entity already),
// in id order after $after, as parallel lists: id, title, whether the document is in $corpus
// (all when null), and the title its chunks were last linked under ("" when never: `titleLinked`).
// params: $after, $limit, $corpus
// returns: ids, titles, inScope, stamps
MATCH (d:Document)
WHERE d.id > $after AND d.title IS NOT NULL AND NOT d:EntityDocument
WITH d ORDER BY d.id LIMIT $limit
RETURN collect(d.id) AS ids, collect(d.title) AS titles, collect($corpus IS NULL OR d.corpus = $corpus) AS inScope,
       collect(coalesce(d.titleLinked, "")) AS stamps
