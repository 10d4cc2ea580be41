package org.graphrag.procedures;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.neo4j.graphdb.QueryExecutionException;
import org.neo4j.graphdb.Transaction;

/**
 * Every procedure's parameters checked against their bounds (one line naming the procedure and the
 * parameter, never a NullPointerException), and a long walk ended by the transaction timeout.
 */
class ProcedureBoundsTest {

    @TempDir
    static Path dir;

    private static EmbeddedNeo4j neo4j;

    @BeforeAll
    static void startNeo4j() throws Exception {
        neo4j = EmbeddedNeo4j.start(dir, Duration.ofMillis(100));
        neo4j.procedures.registerProcedure(PprProcedure.class);
        neo4j.procedures.registerProcedure(RetrieveProcedures.class);
        neo4j.procedures.registerProcedure(SearchProcedure.class);
        neo4j.procedures.registerProcedure(LinkProcedures.class);
        neo4j.procedures.registerFunction(TextFunctions.class);
        // 200 chunks sharing 200 phrases: 40,000 relationships in one seed's two hops
        neo4j.db.executeTransactionally("""
                UNWIND range(0, 199) AS i CREATE (:Chunk {id: 'c' + i, text: 'Babylon ' + i})""");
        neo4j.db.executeTransactionally("""
                UNWIND range(0, 199) AS i CREATE (:Phrase {id: 'p' + i, name: 'p' + i, chunks: 200})""");
        neo4j.db.executeTransactionally("""
                MATCH (c:Chunk), (p:Phrase) CREATE (c)-[:HAS_PHRASE]->(p)""");
        neo4j.db.executeTransactionally("CREATE VECTOR INDEX chunk_embedding FOR (c:Chunk) ON c.embedding OPTIONS "
                + "{indexConfig: {`vector.dimensions`: 2, `vector.similarity_function`: 'cosine'}}");
        neo4j.db.executeTransactionally("CREATE FULLTEXT INDEX chunk_text FOR (c:Chunk) ON EACH [c.text]");
        neo4j.db.executeTransactionally("CALL db.awaitIndexes(60)");
    }

    @AfterAll
    static void stopNeo4j() {
        if (neo4j != null) {
            neo4j.close();
        }
    }

    private static String refusal(String cypher, Map<String, Object> params) {
        QueryExecutionException e = assertThrows(QueryExecutionException.class, () -> neo4j.rows(cypher, params));
        String message = e.getMessage();
        assertFalse(message.contains("\n"), message);
        assertFalse(message.contains("NullPointerException"), message);
        assertFalse(message.contains("ClassCastException"), message);
        return message;
    }

    private static void refused(String cypher, Map<String, Object> params, String expected) {
        String message = refusal(cypher, params);
        assertTrue(message.contains(expected), cypher + " -> " + message);
    }

    @Test
    void pprRefusesItsBadParametersInOneLine() {
        String call = "CALL graphrag.ppr($seeds, $config) YIELD id RETURN id";
        refused(call, Map.of("seeds", Map.of("c0", 1.0), "config", Map.of("iterations", 1_000_000_000L)),
                "graphrag.ppr: config iterations must be a whole number from 1 to 100000, not 1000000000");
        refused(call, Map.of("seeds", Map.of("c0", 1.0), "config", Map.of("iteration", 5L)),
                "graphrag.ppr: unknown config key 'iteration': use damping, iterations, k, labels, maxDegree");
        refused(call, Map.of("seeds", Map.of("c0", 1.0), "config", Map.of("k", 0L)),
                "graphrag.ppr: config k must be a whole number from 1 to 10000, not 0");
        refused(call, Map.of("seeds", Map.of("c0", 1.0), "config", Map.of("damping", 2.0)),
                "graphrag.ppr: config damping must be a finite number from 0 to 1, not 2.0");
        refused(call, Map.of("seeds", Map.of("c0", 1.0), "config", Map.of("relationshipTypes", Map.of("HAS_PHRASE", "x"))),
                "graphrag.ppr: config relationshipTypes must be a map of at most 100 relationship types");
        refused(call, Map.of("seeds", Map.of("c0", "heavy"), "config", Map.of()),
                "graphrag.ppr: the weight of seed 'c0' must be a finite number of at least 0, not 'heavy'");
        refused("CALL graphrag.ppr(null) YIELD id RETURN id", Map.of(),
                "graphrag.ppr: seeds is required (a map of id to weight), not null");
        // a null config is every default; a walk within the bounds ranks the chunks
        assertEquals(neo4j.rows("CALL graphrag.ppr({c0: 1.0}) YIELD id RETURN id", Map.of()),
                neo4j.rows("CALL graphrag.ppr({c0: 1.0}, null) YIELD id RETURN id", Map.of()));
        assertEquals(20, neo4j.rows("CALL graphrag.ppr({c0: 1.0}, {maxDegree: 1000, iterations: 100000}) YIELD id "
                + "RETURN id", Map.of()).size());
    }

    @Test
    void aLongWalkIsEndedByTheTransactionTimeout() {
        long started = System.nanoTime();
        RuntimeException e = assertThrows(RuntimeException.class, () -> {
            try (Transaction tx = neo4j.db.beginTx(1, TimeUnit.SECONDS)) {
                tx.execute("CALL graphrag.ppr({c0: 1.0}, {iterations: 100000, tolerance: 0.0, maxDegree: 1000}) "
                        + "YIELD id RETURN count(id)").resultAsString();
            }
        });
        double seconds = (System.nanoTime() - started) / 1e9;
        assertTrue(seconds < 2.0, "ended after " + seconds + " s: " + e);
        String message = String.valueOf(e.getMessage()).toLowerCase();
        assertTrue(message.contains("timeout") || message.contains("terminated"), message);
    }

    @Test
    void retrievalRefusesAHugeQueryAndMissingArguments() {
        long started = System.nanoTime();
        refused("CALL graphrag.retrieve.graph([0.1, 0.2], $q) YIELD chunkId RETURN chunkId",
                Map.of("q", "lantern ".repeat(125_000)),
                "graphrag.retrieve.graph: the query is 1000000 characters long; at most 10000 are taken");
        assertTrue((System.nanoTime() - started) / 1e9 < 1.0);
        refused("CALL graphrag.retrieve.graph(null, 'lantern') YIELD chunkId RETURN chunkId", Map.of(),
                "graphrag.retrieve.graph: embedding is required (a list of numbers), not null");
        refused("CALL graphrag.retrieve.graph([0.1, null], 'lantern') YIELD chunkId RETURN chunkId", Map.of(),
                "graphrag.retrieve.graph: embedding must be a list of at most 4096 numbers, not a list holding null");
        refused("CALL graphrag.retrieve.neighbours(null, [0.1, 0.2]) YIELD chunkId RETURN chunkId", Map.of(),
                "graphrag.retrieve.neighbours: seedIds is required (a list of ids), not null");
        refused("CALL graphrag.retrieve.neighbours(['c0'], null) YIELD chunkId RETURN chunkId", Map.of(),
                "graphrag.retrieve.neighbours: embedding is required (a list of numbers), not null");
        assertEquals(List.of(), neo4j.rows("CALL graphrag.retrieve.graph([0.1, 0.2], null, null) YIELD chunkId "
                + "RETURN chunkId", Map.of()));
    }

    @Test
    void searchRefusesANullQuestionAndTakesANullConfig() {
        refused("CALL graphrag.search(null) YIELD chunkId RETURN chunkId", Map.of(),
                "graphrag.search: question is required (text), not null");
        // a null config is the empty one: the call gets as far as the model (or answers, with one)
        try {
            neo4j.rows("CALL graphrag.search('who stole the lantern?', null) YIELD chunkId RETURN chunkId", Map.of());
        } catch (QueryExecutionException e) {
            assertFalse(e.getMessage().contains("NullPointerException"), e.getMessage());
            assertTrue(e.getMessage().contains("graphrag.embed") || e.getMessage().contains("ONNX")
                    || e.getMessage().contains("models"), e.getMessage());
        }
    }

    @Test
    void placeMatchingRefusesUnknownKeysAndBadValues() {
        refused("CALL graphrag.link.places.match({corpsu: 'demo'}) YIELD key RETURN key", Map.of(),
                "graphrag.link.places.match: unknown config key 'corpsu': use corpus, keys, minLength");
        refused("CALL graphrag.link.places.match({window: 1000000000}) YIELD key RETURN key", Map.of(),
                "graphrag.link.places.match: config window must be a whole number from 0 to 10000, not 1000000000");
        refused("CALL graphrag.link.places.match({requireCapital: 'yes'}) YIELD key RETURN key", Map.of(),
                "graphrag.link.places.match: config requireCapital must be true or false, not 'yes'");
        refused("CALL graphrag.link.places.match({keys: ['babylon'], skipSections: '(('}) YIELD key RETURN key",
                Map.of(), "graphrag.link.places.match: config skipSections is not a regex");
        refused("CALL graphrag.link.places({minConfidence: 7}) YIELD mentions RETURN mentions", Map.of(),
                "graphrag.link.places: config minConfidence must be a number from 0 to 1, not 7.0");
        // null config: every default (no Place here, so no key and no match)
        assertEquals(List.of(), neo4j.rows("CALL graphrag.link.places.match(null) YIELD key RETURN key", Map.of()));
    }
}
