// One audit record: who wrote (the acting key's name), when, to which corpora, the operation,
// what it changed (a JSON object of counts and capped ids) and whether it failed (its one-line
// error). Written after the work, in a transaction of its own.
// params: $key, $operation, $corpus, $changed, $ok, $error
// returns: at
CREATE (a:__Audit {
  at: datetime(), key: $key, operation: $operation, corpus: $corpus, changed: $changed, ok: $ok, error: $error
})
RETURN toString(a.at) AS at
