"""Running the database: the local Neo4j, schema migrations, the plugin, the doctor, read-only checks."""
