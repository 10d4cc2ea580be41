// The schemas that typed the question's entities (a record's or an extraction's `schema`).
// params: $ids
// returns: schema
UNWIND $ids AS xid
MATCH (x:__Entity__ {id: xid})
WITH DISTINCT x.schema AS schema WHERE schema IS NOT NULL
RETURN schema
