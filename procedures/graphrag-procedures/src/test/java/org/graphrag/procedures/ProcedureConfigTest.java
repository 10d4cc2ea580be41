package org.graphrag.procedures;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.neo4j.graphdb.QueryExecutionException;

/**
 * The config maps of graphrag.search and graphrag.retrieve.graph / .neighbours checked before any work,
 * through Cypher in an embedded Neo4j (a refused call never embeds, so no model is needed), and the
 * full-text query a question makes bounded in clauses.
 */
class ProcedureConfigTest {

    @TempDir
    static Path dir;

    private static EmbeddedNeo4j neo4j;

    @BeforeAll
    static void startNeo4j() throws Exception {
        neo4j = EmbeddedNeo4j.start(dir);
        neo4j.procedures.registerProcedure(RetrieveProcedures.class);
        neo4j.procedures.registerProcedure(SearchProcedure.class);
        neo4j.db.executeTransactionally("CREATE VECTOR INDEX chunk_embedding FOR (c:Chunk) ON c.embedding OPTIONS "
                + "{indexConfig: {`vector.dimensions`: 2, `vector.similarity_function`: 'cosine'}}");
        neo4j.db.executeTransactionally("CREATE FULLTEXT INDEX chunk_text FOR (c:Chunk) ON EACH [c.text, c.title]");
        neo4j.db.executeTransactionally("CREATE FULLTEXT INDEX entity_names FOR (e:__Entity__) ON EACH [e.name, e.aliases]");
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
        assertTrue(!message.contains("\n"), message);
        return message;
    }

    private static String search(String config) {
        return refusal("CALL graphrag.search('lantern', " + config + ") YIELD chunkId RETURN chunkId", Map.of());
    }

    private static String graph(String config) {
        return refusal("CALL graphrag.retrieve.graph([0.1, 0.2], 'lantern', " + config + ") YIELD chunkId RETURN chunkId",
                Map.of());
    }

    @Test
    void badValuesAreRefusedInOneLineNamingTheKey() {
        for (String[] c : new String[][] {
                {"{k: 'abc'}", "config k must be a whole number from 1 to 1000, not 'abc'"},
                {"{k: 2.7}", "config k must be a whole number from 1 to 1000, not 2.7"},
                {"{k: 1000000000}", "config k must be a whole number from 1 to 1000, not 1000000000"},
                {"{k: 0}", "config k must be a whole number from 1 to 1000, not 0"},
                {"{rrfK: 0.0 / 0.0}", "config rrfK must be a finite number from 0 to 100000, not NaN"},
                {"{vectorWeight: 1e308}", "config vectorWeight must be a finite number from 0 to 1000, not 1.0E308"},
                {"{fulltextWeight: -1e308}", "config fulltextWeight must be a finite number from 0 to 1000"},
                {"{from: '2024-13-45'}", "config from must be a real calendar date written YYYY-MM-DD, not '2024-13-45'"},
                {"{to: '2024-02-30'}", "config to must be a real calendar date written YYYY-MM-DD"},
                {"{to: 'yesterday'}", "config to must be a date written YYYY-MM-DD, e.g. 2024-05-01, not 'yesterday'"},
                {"{corpus: 5}", "config corpus must be text of at most 200 characters, not 5"},
                {"{terms: 'silver'}", "config terms must be a list of at most 1000 texts, not 'silver'"},
                {"{linkSeeds: 1e12}", "config linkSeeds must be a whole number from 0 to 1000"},
                {"{about: 5}", "config about must be text of at most 200 characters or a list of at most 1000 such "
                        + "texts, not 5"},
                {"{about: ['a', 1]}", "config about must be text of at most 200 characters or a list of at most 1000 "
                        + "such texts, not a list of 2"},
                {"{kk: 5}", "unknown config key 'kk': use about, aboutRules, aboutWeight, corpora, corpus"}}) {
            assertTrue(search(c[0]).contains("graphrag.search: " + c[1]), c[0] + " -> " + search(c[0]));
            if (!c[0].startsWith("{kk")) {
                assertTrue(graph(c[0]).contains("graphrag.retrieve.graph: " + c[1]), c[0] + " -> " + graph(c[0]));
            }
        }
        assertTrue(search("{mode: 'ppr'}").contains("unknown mode 'ppr': choose one of graph, hybrid, vector"));
        String neighbours = refusal("CALL graphrag.retrieve.neighbours(['a'], [0.1, 0.2], {perSeed: 'abc'}) "
                + "YIELD chunkId RETURN chunkId", Map.of());
        assertTrue(neighbours.contains("graphrag.retrieve.neighbours: config perSeed must be a whole number from 0 to "
                + "1000, not 'abc'"), neighbours);
    }

    @Test
    void goodValuesPass() {
        // nulls are absent keys; a whole float is a whole number; no chunk, so no row
        assertEquals(List.of(), neo4j.rows("CALL graphrag.retrieve.graph([0.1, 0.2], 'lantern', {k: 3.0, corpus: null, "
                + "from: '2024-02-29', to: null, rrfK: 60, vectorWeight: 0.0, terms: ['lantern'], entityIds: [], "
                + "about: ['place:1']}) "
                + "YIELD chunkId RETURN chunkId", Map.of()));
        assertEquals(List.of(), neo4j.rows("CALL graphrag.retrieve.neighbours(['a'], [0.1, 0.2], {perSeed: 5, "
                + "maxPhraseChunks: 50, phraseCap: 1.0, aboutRules: ['own-title'], aboutWeight: 1.0, linkWeight: 0.4, "
                + "corpus: 'tales', from: null, to: '2024-12-31', about: 'place:1'}) YIELD chunkId RETURN chunkId",
                Map.of()));
    }

    @Test
    void aQuestionOverTheCapIsRefused() {
        String message = refusal("CALL graphrag.search($q) YIELD chunkId RETURN chunkId",
                Map.of("q", "lantern ".repeat(300)));
        assertTrue(message.contains("graphrag.search: the question is 2399 characters long; at most 2000 are taken"),
                message);
        String analysis = refusal("CALL graphrag.search.analysis($q) YIELD query RETURN query",
                Map.of("q", "x".repeat(2001)));
        assertTrue(analysis.contains("graphrag.search.analysis: the question is 2001 characters long"), analysis);
    }

    @Test
    void theFullTextQueryOfAQuestionIsBoundedInClauses() {
        assertEquals(3, QuestionWords.clauses("a-b-c"));
        assertEquals(2, QuestionWords.clauses("银灯"));
        assertEquals(3, QuestionWords.clauses("x".repeat(600)));
        assertEquals(0, QuestionWords.clauses("--"));
        // one word of 600 analyzer tokens is left out, the words after it are kept
        String chain = String.join("-", java.util.Collections.nCopies(600, "w"));
        assertEquals("alpha beta", QuestionWords.luceneQuery(List.of("alpha", chain, "beta"), " "));
        // a question of the cap's length, 400 distinct words and Lucene syntax: no TooManyClauses
        StringBuilder q = new StringBuilder();
        String[] syntax = {"AND", "OR", "w~", "x^2", "y*", "(a:b)", "\"q\"", "-z", "+v", "a-b-c-d-e"};
        for (int i = 0; q.length() < 2000; i++) {
            q.append(i % 5 == 0 ? syntax[i / 5 % syntax.length] : "t" + i + "-u" + i + "-v" + i).append(' ');
        }
        StringBuilder han = new StringBuilder();  // 2000 Han characters, 400 distinct: one token each
        for (int i = 0; i < 2000; i++) {
            han.appendCodePoint(0x4E00 + 200 + i % 400);
        }
        for (String question : List.of(q.substring(0, 2000), han.toString())) {
            String query = (String) neo4j.rows("CALL graphrag.search.analysis($q) YIELD query RETURN query",
                    Map.of("q", question)).get(0).get("query");
            neo4j.rows("CALL db.index.fulltext.queryNodes('chunk_text', $query) YIELD node RETURN node",
                    Map.of("query", query));
        }
        // the fallback of a question without keywords (every word too short) is bounded too
        String shorts = String.join(" ", java.util.Collections.nCopies(999, "a")) + " b";
        String fallback = (String) neo4j.rows("CALL graphrag.search.analysis($q) YIELD query RETURN query",
                Map.of("q", shorts)).get(0).get("query");
        assertEquals(QuestionWords.MAX_QUERY_CLAUSES, fallback.split(" ").length);
        neo4j.rows("CALL db.index.fulltext.queryNodes('chunk_text', $query) YIELD node RETURN node",
                Map.of("query", fallback));
    }
}
