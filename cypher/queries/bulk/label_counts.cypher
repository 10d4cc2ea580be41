// How many nodes carry each label (the bulk path's graphs compared, `graphrag import` checked).
// params: none
// returns: label, count
MATCH (n)
UNWIND labels(n) AS label
RETURN label, count(*) AS count
ORDER BY label
