package org.graphrag.procedures;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.graphdb.QueryExecutionException;

/**
 * graphrag.embed through Cypher in an embedded Neo4j, on the export of {@code graphrag models export}
 * ({@code .graphrag/models} of the checkout, or GRAPHRAG_MODELS_DIR). The agreement with the Python
 * embedder is tested from Python (tests/e2e/test_embed_procedure.py).
 */
class EmbedFunctionsTest {

    @TempDir
    static Path dir;

    private static EmbeddedNeo4j neo4j;
    private static GraphDatabaseService db;
    private static Path models;

    @BeforeAll
    static void startNeo4j() throws Exception {
        models = EmbeddedNeo4j.exportedModelsOrSkip();
        neo4j = EmbeddedNeo4j.start(dir);
        db = neo4j.db;
        neo4j.procedures.registerFunction(EmbedFunctions.class);
    }

    @AfterAll
    static void stopNeo4j() {
        System.clearProperty(Embedder.DIR_PROPERTY);
        if (neo4j != null) {
            neo4j.close();
        }
    }

    @SuppressWarnings("unchecked")
    private static List<Double> embed(String text) {
        return (List<Double>) db.executeTransactionally("RETURN graphrag.embed($t) AS v", Map.of("t", text),
                r -> r.next().get("v"));
    }

    private static double dot(List<Double> a, List<Double> b) {
        double s = 0;
        for (int i = 0; i < a.size(); i++) {
            s += a.get(i) * b.get(i);
        }
        return s;
    }

    @Test
    void aUnitVectorOf384FloatsThatKnowsParaphrases() {
        List<Double> q = embed("Who stole the silver lantern?");
        assertEquals(384, q.size());
        assertEquals(1.0, dot(q, q), 1e-5);
        double near = dot(q, embed("The thief took the silver lamp."));
        double far = dot(q, embed("Quarterly revenue of the shipping company rose by four percent."));
        assertTrue(near > far + 0.2, near + " vs " + far);
    }

    @Test
    void textIsStrippedAndCutAtTheModelsSequenceLength() {
        assertEquals(embed("harbour"), embed(" \u00a0harbour\n"));
        String longText = "The miller's daughter spun straw into gold by the light of the moon. ".repeat(40);
        // both are cut at 256 tokens, so what follows the cut changes nothing
        assertEquals(embed(longText), embed(longText + "A dragon then burned the whole village down."));
        assertEquals(384, embed("").size());
        assertEquals(384, embed("银灯是谁做的？谁偷走了它？").size());
    }

    @Test
    void nullGivesNull() {
        assertNull(db.executeTransactionally("RETURN graphrag.embed(null) AS v", Map.of(), r -> r.next().get("v")));
    }

    @Test
    void oneModelServesManyThreadsAlike() throws Exception {
        List<Double> expected = embed("Der Troll stahl das Licht aus der Kapelle.");
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<List<Double>>> futures = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                futures.add(pool.submit(() -> embed("Der Troll stahl das Licht aus der Kapelle.")));
            }
            for (Future<List<Double>> f : futures) {
                assertEquals(expected, f.get());
            }
        } finally {
            pool.shutdown();
        }
        assertTrue(Embedder.instance() == Embedder.instance(), "loaded once");
    }

    @Test
    void aMissingModelSaysHowToMakeIt(@TempDir Path empty) {
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> Embedder.instance(empty.resolve(Embedder.EXPORT_NAME)));
        assertTrue(e.getMessage().startsWith("graphrag.embed needs the ONNX model: run `graphrag models export`"),
                e.getMessage());
        System.setProperty(Embedder.DIR_PROPERTY, empty.toString());
        try {
            QueryExecutionException q = assertThrows(QueryExecutionException.class, () -> embed("lantern"));
            assertTrue(q.getMessage().contains("graphrag models export"), q.getMessage());
        } finally {
            System.setProperty(Embedder.DIR_PROPERTY, models.toString());
        }
    }

    @Test
    void stripIsPythons() {
        assertArrayEquals(new String[] {"a b", "", "x"},
                new String[] {PyText.strip("\u2003a b\u00a0\u2028"), PyText.strip(" \t\n"), PyText.strip("x")});
    }
}
