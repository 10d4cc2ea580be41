package org.graphrag.procedures;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.graphdb.QueryExecutionException;
import org.neo4j.kernel.api.procedure.GlobalProcedures;

/** graphrag.link.places through Cypher: what it links, that it writes only the difference, its options. */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class LinkPlacesCypherTest {

    @TempDir
    static Path dir;

    private static EmbeddedNeo4j neo4j;
    private static GraphDatabaseService db;

    @BeforeAll
    static void startNeo4j() throws Exception {
        neo4j = EmbeddedNeo4j.start(dir);
        db = neo4j.db;
        GlobalProcedures procedures = neo4j.procedures;
        procedures.registerProcedure(LinkProcedures.class);
        db.executeTransactionally("""
                CREATE (d1:Document {id: 'd1', corpus: 'demo', emphasis: ['Thebes', 'The Road to Rome']}),
                       (d2:Document {id: 'd2', corpus: 'other'}),
                       (:Chunk {id: 'a', text: 'The island of Samos faces Miletus. Heron of Alexandria wrote.'})-[:FROM_DOCUMENT]->(d1),
                       (:Chunk {id: 'b', text: 'From Samos to Miletus and Asia Minor; see P. Miletus 12.'})-[:FROM_DOCUMENT]->(d1),
                       (:Chunk {id: 'c', text: 'The board game Thebes is played; he read The Road to Rome today.'})-[:FROM_DOCUMENT]->(d1),
                       (:Chunk {id: 'r', text: 'Samos: Routledge. Miletus 1998.', section: 'Bibliography'})-[:FROM_DOCUMENT]->(d1),
                       (:Chunk {id: 'x', text: 'Miletus again, and Well.'})-[:FROM_DOCUMENT]->(d2),
                       (:Place:__Entity__ {id: 'p:samos-i', source: 'pleiades', title: 'Samos (island)',
                          description: 'An island in the Aegean.', names: ['Samos'], placeTypes: ['island'], lat: 37.7, lon: 26.8}),
                       (:Place:__Entity__ {id: 'p:samos-c', source: 'pleiades', title: 'Samos',
                          description: 'A city on the island.', names: ['Samos'], placeTypes: ['settlement'], lat: 37.69, lon: 26.94}),
                       (:Place:__Entity__ {id: 'p:miletus', source: 'pleiades', title: 'Miletos/Miletus',
                          description: 'A city in Ionia.', names: ['Miletos', 'Miletus'], lat: 37.53, lon: 27.28}),
                       (:Place:__Entity__ {id: 'p:alexandria', source: 'pleiades', title: 'Alexandria',
                          description: 'A city in Egypt.', names: ['Alexandria'], lat: 31.2, lon: 29.9}),
                       (:Place:__Entity__ {id: 'p:asia', source: 'pleiades', title: 'Asia', description: 'A province.',
                          names: ['Asia'], lat: 38.0, lon: 28.0}),
                       (:Place:__Entity__ {id: 'p:asia-minor', source: 'pleiades', title: 'Asia Minor',
                          description: 'A peninsula.', names: ['Asia Minor'], lat: 39.0, lon: 32.0}),
                       (:Place:__Entity__ {id: 'p:thebes', source: 'pleiades', title: 'Thebes', description: 'A city.',
                          names: ['Thebes'], lat: 38.3, lon: 23.3}),
                       (:Place:__Entity__ {id: 'p:rome', source: 'pleiades', title: 'Roma', description: 'A city.',
                          names: ['Rome'], lat: 41.9, lon: 12.5}),
                       (:Place:__Entity__ {id: 'p:well', source: 'pleiades', title: 'Well', description: 'A place.',
                          names: ['Well'], lat: 1.0, lon: 1.0})
                """);
    }

    @AfterAll
    static void stopNeo4j() {
        if (neo4j != null) {
            neo4j.close();
        }
    }

    private static List<Map<String, Object>> rows(String cypher, Map<String, Object> params) {
        return neo4j.rows(cypher, params);
    }

    private static Map<String, Object> link(Map<String, Object> config) {
        return rows("CALL graphrag.link.places($config) YIELD mentions, created, updated, removed, total, "
                + "chunksScanned, chunksSkipped, overlapped, notAPlace, undecided, rules, edges RETURN *",
                Map.of("config", config)).get(0);
    }

    private static List<String> links() {
        List<String> out = new ArrayList<>();
        for (Map<String, Object> r : rows("MATCH (c:Chunk)-[m:MENTIONS {linker: 'places'}]->(p:Place) "
                + "RETURN c.id + ' ' + p.id + ' ' + m.rule AS l ORDER BY l", Map.of())) {
            out.add((String) r.get("l"));
        }
        return out;
    }

    @Test
    @Order(1)
    void aDryRunDecidesAndWritesNothing() {
        Map<String, Object> out = link(Map.of("corpus", "demo", "dryRun", true, "returnEdges", true));
        assertEquals(0L, out.get("created"));
        assertEquals(List.of(), links());
        assertEquals(((List<?>) out.get("edges")).size(), ((Long) out.get("mentions")).intValue());
    }

    @Test
    @Order(2)
    void linksByTheRulesThenChangesNothing() {
        Map<String, Object> first = link(Map.of("corpus", "demo"));
        assertEquals(List.of("a p:miletus unique-name", "a p:samos-i kind-cue", "b p:asia-minor unique-name",
                "b p:miletus unique-name", "b p:samos-i document-sense"), links(),
                "island cue, one sense per document, the longest name; epithet, siglum, game title skipped");
        assertEquals(5L, first.get("created"));
        assertEquals(3L, first.get("chunksScanned"));
        assertEquals(1L, first.get("chunksSkipped"));
        assertEquals(1L, first.get("overlapped"));
        Map<?, ?> dropped = (Map<?, ?>) first.get("notAPlace");
        assertEquals(1L, dropped.get("person-epithet"));
        assertEquals(1L, dropped.get("siglum"));
        assertEquals(2L, dropped.get("title"), "the game Thebes, and Rome inside the italic title");
        Map<String, Object> again = link(Map.of("corpus", "demo"));
        assertEquals(List.of(0L, 0L, 0L, 5L),
                List.of(again.get("created"), again.get("updated"), again.get("removed"), again.get("total")));
        Map<String, Object> edge = rows("MATCH (:Chunk {id: 'b'})-[m:MENTIONS]->(:Place {id: 'p:samos-i'}) "
                + "RETURN m {.*} AS m", Map.of()).get(0);
        Map<?, ?> m = (Map<?, ?>) edge.get("m");
        assertEquals("aho-corasick-in-neo4j", m.get("source"));
        assertEquals(List.of("p:samos-i", "p:samos-c"), List.of((String[]) m.get("candidates")));
        assertEquals(List.of("Samos"), List.of((String[]) m.get("matched")));
        assertEquals(1L, m.get("mentions"));
        assertTrue(m.get("at") != null, "the time first made");
    }

    @Test
    @Order(3)
    void anotherRuleSetUpdatesAndRemovesOnlyTheDifference() {
        Map<String, Object> out = link(Map.of("corpus", "demo", "stoplist", List.of("Miletus")));
        assertEquals(List.of(0L, 2L), List.of(out.get("created"), out.get("removed")), "Miletus' two edges");
        assertEquals(3, links().size());
        out = link(Map.of("corpus", "demo", "minConfidence", 0.99));
        assertTrue((Long) out.get("removed") > 0 && (Long) out.get("undecided") > 0);
        link(Map.of("corpus", "demo"));
        assertEquals(5, links().size());
        // an edge another linker made between the same nodes becomes this linker's, not a second edge
        rows("MATCH (c:Chunk {id: 'x'}), (p:Place {id: 'p:miletus'}) CREATE (c)-[:MENTIONS {linker: 'other'}]->(p)",
                Map.of());
        out = link(Map.of());
        assertEquals(0L, out.get("created"));
        assertEquals(1L, rows("MATCH (:Chunk {id: 'x'})-[m:MENTIONS]->() RETURN count(m) AS n", Map.of()).get(0)
                .get("n"));
        assertEquals(6, links().size(), "other corpora too without a corpus; 'Well' stays stop-listed");
    }

    @Test
    @Order(4)
    void unknownConfigKeysAreOneLine() {
        QueryExecutionException e = assertThrows(QueryExecutionException.class, () -> link(Map.of("corpos", "x")));
        assertTrue(e.getMessage().contains("unknown config key 'corpos'"), e.getMessage());
        e = assertThrows(QueryExecutionException.class, () -> link(Map.of("minConfidence", "high")));
        assertTrue(e.getMessage().contains("config minConfidence must be a number, not 'high'"), e.getMessage());
        e = assertThrows(QueryExecutionException.class, () -> link(Map.of("skipSections", "(")));
        assertTrue(e.getMessage().contains("skipSections is not a regex"), e.getMessage());
    }
}
