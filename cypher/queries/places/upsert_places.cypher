// Create or update gazetteer places as :Place:__Entity__ nodes; a place whose contentHash is
// unchanged is left alone, so loading the same file twice writes nothing.
// params: $rows
// returns: created, updated, unchanged
UNWIND $rows AS row
MERGE (p:__Entity__ {id: row.id})
WITH p, row, p.contentHash AS before
SET p:Place
FOREACH (_ IN CASE WHEN before IS NULL OR before <> row.props.contentHash THEN [1] ELSE [] END |
  SET p += row.props, p.updatedAt = datetime())
RETURN sum(CASE WHEN before IS NULL THEN 1 ELSE 0 END) AS created,
       sum(CASE WHEN before IS NOT NULL AND before <> row.props.contentHash THEN 1 ELSE 0 END) AS updated,
       sum(CASE WHEN before = row.props.contentHash THEN 1 ELSE 0 END) AS unchanged
