package org.graphrag.procedures;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Assumptions;
import org.neo4j.configuration.GraphDatabaseSettings;
import org.neo4j.dbms.api.DatabaseManagementService;
import org.neo4j.dbms.api.DatabaseManagementServiceBuilder;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.io.ByteUnit;
import org.neo4j.kernel.api.procedure.GlobalProcedures;
import org.neo4j.kernel.internal.GraphDatabaseAPI;

/**
 * An embedded Neo4j of the server's version for the procedure tests (neo4j-harness 5.26.19 is not on
 * Maven Central): a small page cache, the default database, and the registry the tests put the
 * plugin's procedures and functions into.
 */
final class EmbeddedNeo4j implements AutoCloseable {

    final DatabaseManagementService dbms;
    final GraphDatabaseService db;
    final GlobalProcedures procedures;

    private EmbeddedNeo4j(Path dir, Duration monitorInterval) {
        DatabaseManagementServiceBuilder builder = new DatabaseManagementServiceBuilder(dir)
                .setConfig(GraphDatabaseSettings.pagecache_memory, ByteUnit.mebiBytes(16));
        if (monitorInterval != null) {
            builder.setConfig(GraphDatabaseSettings.transaction_monitor_check_interval, monitorInterval);
        }
        dbms = builder.build();
        db = dbms.database(GraphDatabaseSettings.DEFAULT_DATABASE_NAME);
        procedures = ((GraphDatabaseAPI) db).getDependencyResolver().resolveDependency(GlobalProcedures.class);
    }

    static EmbeddedNeo4j start(Path dir) {
        return new EmbeddedNeo4j(dir, null);
    }

    /** A database whose transactions are checked for their timeout every `monitorInterval`. */
    static EmbeddedNeo4j start(Path dir, Duration monitorInterval) {
        return new EmbeddedNeo4j(dir, monitorInterval);
    }

    /** Every row of one statement, in its own transaction. */
    List<Map<String, Object>> rows(String cypher, Map<String, Object> params) {
        return db.executeTransactionally(cypher, params, r -> {
            List<Map<String, Object>> out = new ArrayList<>();
            r.forEachRemaining(out::add);
            return out;
        });
    }

    /**
     * The folder of `graphrag models export` ({@code GRAPHRAG_MODELS_DIR}, else the checkout's
     * {@code .graphrag/models}), set for {@link Embedder}; the test is skipped when there is no export.
     */
    static Path exportedModelsOrSkip() {
        String env = System.getenv(Embedder.DIR_ENV);
        Path models = env != null && !env.isBlank() ? Path.of(env) : Path.of("../../.graphrag/models").toAbsolutePath().normalize();
        Assumptions.assumeTrue(Files.isRegularFile(models.resolve(Embedder.EXPORT_NAME).resolve("model.onnx")),
                "no ONNX export in " + models + ": run `graphrag models export`");
        System.setProperty(Embedder.DIR_PROPERTY, models.toString());
        return models;
    }

    @Override
    public void close() {
        dbms.shutdown();
    }
}
