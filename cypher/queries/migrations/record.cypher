// Record (or, for a repeatable migration, update) an applied migration.
// params: $version, $description, $type, $file, $checksum, $resolvedChecksum, $statements, $durationMs, $appliedBy
// returns: version
MERGE (m:__Migration {version: $version})
SET m.description = $description, m.type = $type, m.file = $file,
    m.checksum = $checksum, m.resolvedChecksum = $resolvedChecksum,
    m.statements = $statements, m.durationMs = $durationMs,
    m.appliedBy = $appliedBy, m.appliedAt = datetime()
RETURN m.version AS version
