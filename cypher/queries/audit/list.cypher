// Audit records, newest first: those since $since (an ISO date-time, or null for all), by the key
// named $key and touching $corpus (each null: any), at most $limit.
// params: $since, $key, $corpus, $limit
// returns: at (a DateTime; `core.audit.entries` writes it with milliseconds, so the text sorts), key, operation, corpus, changed, ok, error
MATCH (a:__Audit)
WHERE ($since IS NULL OR a.at >= datetime($since))
  AND ($key IS NULL OR a.key = $key)
  AND ($corpus IS NULL OR $corpus IN a.corpus)
RETURN a.at AS at, a.key AS key, a.operation AS operation, a.corpus AS corpus, a.changed AS changed,
       a.ok AS ok, a.error AS error
ORDER BY a.at DESC
LIMIT $limit
