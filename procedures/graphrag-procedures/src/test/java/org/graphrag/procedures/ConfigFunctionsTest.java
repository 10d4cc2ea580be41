package org.graphrag.procedures;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** graphrag.configKeys through Cypher: what each procedure's config check accepts, and null for other names. */
class ConfigFunctionsTest {

    @TempDir
    static Path dir;

    private static EmbeddedNeo4j neo4j;

    @BeforeAll
    static void startNeo4j() throws Exception {
        neo4j = EmbeddedNeo4j.start(dir);
        neo4j.procedures.registerFunction(ConfigFunctions.class);
    }

    @AfterAll
    static void stopNeo4j() {
        if (neo4j != null) {
            neo4j.close();
        }
    }

    @SuppressWarnings("unchecked")
    private static List<String> keys(String procedure) {
        Map<String, Object> params = new java.util.HashMap<>();
        params.put("p", procedure);
        return (List<String>) neo4j.rows("RETURN graphrag.configKeys($p) AS keys", params).get(0).get("keys");
    }

    @Test
    void theKeysAreThoseTheConfigCheckAccepts() {
        List<String> graph = keys("graphrag.retrieve.graph");
        assertEquals(new java.util.ArrayList<>(new java.util.TreeSet<>(ProcedureConfig.GRAPH.keySet())), graph);
        assertTrue(graph.contains("corpora") && graph.contains("corpus") && graph.contains("about"), graph.toString());
        assertTrue(keys("graphrag.retrieve.neighbours").contains("corpora"));
        assertTrue(keys("graphrag.ppr").contains("damping"));
        assertEquals(ProcedureConfig.SEARCH.size(), keys("graphrag.search").size());
    }

    @Test
    void anotherNameIsNull() {
        assertNull(keys("graphrag.fold"));
        assertNull(keys("db.index.vector.queryNodes"));
        assertNull(keys(null));
    }
}
