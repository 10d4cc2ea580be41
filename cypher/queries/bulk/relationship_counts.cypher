// How many relationships of each type there are (the bulk path's graphs compared).
// params: none
// returns: type, count
MATCH ()-[r]->()
RETURN type(r) AS type, count(*) AS count
ORDER BY type
