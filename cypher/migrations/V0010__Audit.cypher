// The audit of writes (`graphrag audit`, GET /audit): records are read newest first and by time.
CREATE INDEX audit_at IF NOT EXISTS
FOR (a:__Audit) ON (a.at);
