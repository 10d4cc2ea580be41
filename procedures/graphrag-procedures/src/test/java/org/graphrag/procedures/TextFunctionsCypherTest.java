package org.graphrag.procedures;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.file.Path;
import java.util.Map;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.neo4j.graphdb.GraphDatabaseService;

/** Calls graphrag.fold through Cypher in an embedded Neo4j of the server's version. */
class TextFunctionsCypherTest {

    @TempDir
    static Path dir;

    private static EmbeddedNeo4j neo4j;
    private static GraphDatabaseService db;

    @BeforeAll
    static void startNeo4j() throws Exception {
        neo4j = EmbeddedNeo4j.start(dir);
        db = neo4j.db;
        neo4j.procedures.registerFunction(TextFunctions.class);
    }

    @AfterAll
    static void stopNeo4j() {
        if (neo4j != null) {
            neo4j.close();
        }
    }

    private static Object call(String cypher, Map<String, Object> params) {
        return db.executeTransactionally(cypher, params, r -> r.next().get("v"));
    }

    @Test
    void foldIsCallableFromCypher() {
        assertEquals("  sao   paulo ", call("RETURN graphrag.fold($t) AS v", Map.of("t", "  São   PAULO ")));
        assertEquals("sao paulo", call("RETURN graphrag.normName($t) AS v", Map.of("t", "  São-  PAULO ")));
        assertEquals("creme brulee", call("RETURN graphrag.fold('Crème Brûlée') AS v", Map.of()));
        assertNull(call("RETURN graphrag.fold(null) AS v", Map.of()));
    }

    @Test
    void foldMatchesNodesRegardlessOfAccents() {
        db.executeTransactionally("CREATE (:Place {name: 'Zürich'}), (:Place {name: 'Malmö'}), (:Place {name: 'Oslo'})");
        Object n = call("MATCH (p:Place) WHERE graphrag.fold(p.name) IN ['zurich', 'malmo'] RETURN count(p) AS v",
                Map.of());
        assertEquals(2L, n);
    }
}
