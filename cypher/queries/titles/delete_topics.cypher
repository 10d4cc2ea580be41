// Topics whose title no document carries any more (removed or renamed documents), with their edges.
// params: $ids
// returns: removed
UNWIND $ids AS id
MATCH (e:__Entity__ {id: id})
WHERE e.source = 'title'
DETACH DELETE e
RETURN count(*) AS removed
