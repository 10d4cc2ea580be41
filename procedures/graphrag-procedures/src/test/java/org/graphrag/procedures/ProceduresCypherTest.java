package org.graphrag.procedures;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.kernel.api.procedure.GlobalProcedures;

/** The procedures called through Cypher in an embedded Neo4j of the server's version. */
class ProceduresCypherTest {

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
        procedures.registerProcedure(PprProcedure.class);
        procedures.registerProcedure(RetrieveProcedures.class);
        procedures.registerFunction(TextFunctions.class);
        // Two documents of two chunks; a shared phrase, a place, a topic with its own chunk.
        db.executeTransactionally("""
                CREATE (d1:Document {id: 'd1', title: 'Lanterns', corpus: 'demo'}),
                       (d2:Document {id: 'd2', title: 'Thieves', corpus: 'demo'}),
                       (d3:Document {id: 'd3', title: 'Elsewhere', corpus: 'other'}),
                       (a:Chunk {id: 'a', text: 'The silver lantern was made in Babylon.', embedding: [1.0, 0.0]})-[:FROM_DOCUMENT]->(d1),
                       (b:Chunk {id: 'b', text: 'Its maker left Babylon for Rome: Routledge.', embedding: [0.0, 1.0]})-[:FROM_DOCUMENT]->(d1),
                       (c:Chunk {id: 'c', text: 'A thief took the silver lantern from rome.', embedding: [1.0, 1.0]})-[:FROM_DOCUMENT]->(d2),
                       (x:Chunk {id: 'x', text: 'Babylon again.', embedding: [1.0, 0.0], section: 'References'})-[:FROM_DOCUMENT]->(d3),
                       (p:Phrase {id: 'silver lantern', name: 'silver lantern', chunks: 2}),
                       (a)-[:HAS_PHRASE]->(p), (c)-[:HAS_PHRASE]->(p),
                       (:Place:__Entity__ {id: 'pl:1', name: 'Babylon', names: ['Babylon']}),
                       (:Place:__Entity__ {id: 'pl:2', name: 'Rome', names: ['Rome', 'Roma']}),
                       (t:__Entity__ {id: 'thief', name: 'Thief'}),
                       (b)-[:MENTIONS {rule: 'unique'}]->(t), (c)-[:MENTIONS {rule: 'own-title'}]->(t)
                """);
        db.executeTransactionally("CREATE VECTOR INDEX chunk_embedding FOR (c:Chunk) ON c.embedding OPTIONS "
                + "{indexConfig: {`vector.dimensions`: 2, `vector.similarity_function`: 'cosine'}}");
        db.executeTransactionally("CREATE FULLTEXT INDEX chunk_text FOR (c:Chunk) ON EACH [c.text]");
        db.executeTransactionally("CALL db.awaitIndexes(60)");
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

    @Test
    void linkPlacesMatchFindsPlaceNamesInTheChunks() {
        List<Map<String, Object>> found = rows("""
                CALL graphrag.link.places.match({corpus: 'demo'})
                YIELD chunkId, key, start, end, surface, before, after
                RETURN chunkId, key, start, end, surface, before, after ORDER BY chunkId, start""", Map.of());
        // "Rome: Routledge" is a publisher's tail, "rome" has no capital, chunk x is another corpus
        assertEquals(2, found.size(), found.toString());
        assertEquals(Map.of("chunkId", "a", "key", "babylon", "start", 31L, "end", 38L, "surface", "Babylon",
                "before", "The silver lantern was made in ", "after", "."), found.get(0));
        assertEquals("b", found.get(1).get("chunkId"));
        List<Map<String, Object>> skipped = rows("""
                CALL graphrag.link.places.match({keys: ['babylon'], skipSections: '(?i)references'})
                YIELD chunkId RETURN collect(chunkId) AS ids""", Map.of());
        assertEquals(List.of("a", "b"), skipped.get(0).get("ids"));
    }

    @Test
    void pprRanksChunksFromWeightedSeeds() {
        List<Map<String, Object>> ranked = rows("""
                CALL graphrag.ppr({a: 1.0}, {k: 5}) YIELD id, score RETURN id, score""", Map.of());
        assertEquals("a", ranked.get(0).get("id"));
        assertEquals("c", ranked.get(1).get("id"), "c shares the phrase with a");
        assertEquals(2, ranked.size());
        // weights move the walk: mostly from b, which reaches c through the topic
        List<Map<String, Object>> weighted = rows("""
                CALL graphrag.ppr({a: 0.1, b: 0.9}, {}) YIELD id RETURN collect(id) AS ids""", Map.of());
        assertEquals(List.of("b", "c", "a"), weighted.get(0).get("ids"));
        List<Map<String, Object>> typed = rows("""
                CALL graphrag.ppr({b: 1.0}, {relationshipTypes: {HAS_PHRASE: 1.0}}) YIELD id RETURN collect(id) AS ids""",
                Map.of());
        assertEquals(List.of(), typed.get(0).get("ids"), "without MENTIONS b has nowhere to walk");
    }

    @Test
    void neighboursFollowPhrasesAndTopicsIntoOtherDocuments() {
        List<Map<String, Object>> found = rows("""
                CALL graphrag.retrieve.neighbours(['a', 'b'], [1.0, 0.0], {})
                YIELD seedId, chunkId, documentId, similarity, seedSimilarity, weight, strength, via
                RETURN seedId, chunkId, documentId, similarity, seedSimilarity, weight, strength, via ORDER BY seedId""",
                Map.of());
        assertEquals(2, found.size(), found.toString());
        Map<String, Object> fromA = found.get(0);
        assertEquals("c", fromA.get("chunkId"));
        assertEquals(0.5, (Double) fromA.get("weight"), 1e-12);
        assertEquals(List.of("silver lantern"), fromA.get("via"));
        // cosines in [-1, 1], as seed_neighbours.cypher returns them
        assertEquals(Math.sqrt(0.5), (Double) fromA.get("similarity"), 1e-6);
        assertEquals(Math.sqrt(0.5), (Double) fromA.get("seedSimilarity"), 1e-6);
        // the seed is the question: nothing is left beyond it, only the link counts (0.4 x 0.5)
        assertEquals(0.2, (Double) fromA.get("strength"), 1e-6);
        Map<String, Object> fromB = found.get(1);
        assertEquals(List.of("Thief"), fromB.get("via"));
        assertEquals(1.0, (Double) fromB.get("weight"), 1e-12);
        assertEquals(Math.sqrt(0.5) + 0.4, (Double) fromB.get("strength"), 1e-6);
        assertTrue(rows("CALL graphrag.retrieve.neighbours(['a'], [1.0, 0.0], {corpus: 'other'}) YIELD chunkId "
                + "RETURN chunkId", Map.of()).isEmpty());
        assertTrue(rows("CALL graphrag.retrieve.neighbours(['a'], [1.0, 0.0], {perSeed: 0}) YIELD chunkId "
                + "RETURN chunkId", Map.of()).isEmpty());
        List<Map<String, Object>> capped = rows("""
                CALL graphrag.retrieve.neighbours(['a'], [1.0, 0.0], {phraseCap: 0.1, linkWeight: 1.0})
                YIELD weight, strength RETURN weight, strength""", Map.of());
        assertEquals(0.1, (Double) capped.get(0).get("weight"), 1e-12, "shared phrases weigh at most phraseCap");
        assertEquals(0.1, (Double) capped.get(0).get("strength"), 1e-6);
    }

    @Test
    void onlyTheStrongestLinksAndTheQuestionsNearestChunksAreScored() {
        String all = "CALL graphrag.retrieve.neighbours(['a', 'b'], [1.0, 0.0], %s) YIELD seedId, chunkId, strength "
                + "RETURN seedId, chunkId, strength ORDER BY seedId";
        List<Map<String, Object>> every = rows(String.format(all, "{}"), Map.of());
        assertEquals(2, every.size(), every.toString());
        assertTrue(rows(String.format(all, "{leadPool: 0, leadHits: 0}"), Map.of()).isEmpty(), "nothing is scored");
        // every chunk is among the question's nearest: the pool may be empty
        assertEquals(every, rows(String.format(all, "{leadPool: 0}"), Map.of()));
        assertEquals(every, rows(String.format(all, "{leadPool: 1, leadHits: 0}"), Map.of()));
    }

    @Test
    void graphGivesSpareRowsPastK() {
        String ranked = "CALL graphrag.retrieve.graph([1.0, 0.0], 'lantern', %s) YIELD chunkId RETURN collect(chunkId) AS ids";
        assertEquals(List.of("a", "c"), rows(String.format(ranked, "{k: 2}"), Map.of()).get(0).get("ids"));
        assertEquals(List.of("a", "c", "x"), rows(String.format(ranked, "{k: 2, spare: 1}"), Map.of()).get(0).get("ids"));
    }

    @Test
    void graphPlacesEachSeedsBestNeighbourAfterIt() {
        List<Map<String, Object>> ranked = rows("""
                CALL graphrag.retrieve.graph([1.0, 0.0], 'lantern', {k: 5})
                YIELD chunkId, documentId, title, score, via RETURN chunkId, documentId, title, score, via""", Map.of());
        assertEquals(List.of("a", "c", "x", "b"), ranked.stream().map(r -> r.get("chunkId")).toList(), ranked.toString());
        assertEquals(List.of("linked by silver lantern from a"), ranked.get(1).get("via"));
        assertEquals(ranked.get(0).get("score"), ranked.get(1).get("score"), "a neighbour inherits its seed's score");
        assertTrue(((List<?>) ranked.get(0).get("via")).containsAll(List.of("fulltext#1")), ranked.get(0).toString());
        assertEquals("Thieves", ranked.get(1).get("title"));
        List<Map<String, Object>> filtered = rows("""
                CALL graphrag.retrieve.graph([1.0, 0.0], 'lantern', {k: 5, corpus: 'demo'}) YIELD chunkId
                RETURN collect(chunkId) AS ids""", Map.of());
        assertEquals(List.of("a", "c", "b"), filtered.get(0).get("ids"));
        List<Map<String, Object>> about = rows("""
                CALL graphrag.retrieve.graph([1.0, 0.0], 'lantern', {k: 2, entityIds: ['thief'], linkSeeds: 0})
                YIELD chunkId, via
                RETURN chunkId, via""", Map.of());
        assertEquals("c", about.get(1).get("chunkId"));
        assertEquals(List.of("about question entity Thief"), about.get(1).get("via"));
        assertTrue(rows("CALL graphrag.retrieve.graph([1.0, 0.0], '', {corpus: 'none'}) YIELD chunkId RETURN chunkId",
                Map.of()).isEmpty());
    }

    @Test
    void coverageCountsTheTermsTheSeedLacksThatTheNeighbourHolds() {
        // the same words as graph.py's words() (Python's \w over the fold)
        assertEquals(java.util.Set.of("2nd_try", "istanbul", "paulo", "s", "sao", "straße", "½", "ⅻ", "ﬁne"),
                RetrieveProcedures.words("Ŝão Paulo's 2nd_try, ﬁne Straße İSTANBUL ½ Ⅻ"));
        assertEquals(java.util.Set.of("xy", "οδυσσευσ", "東京タワー"),
                RetrieveProcedures.words("Ὀδυσσεύς — 東京タワー  x\u0301y"));
        List<java.util.Set<String>> terms = List.of(RetrieveProcedures.words("silver lantern"),
                RetrieveProcedures.words("thief"), RetrieveProcedures.words("Rome"));
        List<Double> even = List.of(1.0, 1.0, 1.0);
        assertEquals(1.0, RetrieveProcedures.coverage(terms, even, RetrieveProcedures.words("The silver lantern"),
                RetrieveProcedures.words("a THIEF in rome")), 0.0);
        assertEquals(0.5, RetrieveProcedures.coverage(terms, even, RetrieveProcedures.words("The silver lantern"),
                RetrieveProcedures.words("a thief")), 0.0);
        assertEquals(0.0, RetrieveProcedures.coverage(terms, even, RetrieveProcedures.words("silver lantern thief rome"),
                RetrieveProcedures.words("a thief")), 0.0);
        // graph.py's term_weights: rarer among the candidates weighs more
        List<java.util.Set<String>> pool = List.of(RetrieveProcedures.words("a thief"),
                RetrieveProcedures.words("thief of Rome"), RetrieveProcedures.words("the thief"));
        List<Double> idf = RetrieveProcedures.termWeights(terms, pool);
        assertEquals(Math.log(4 / 0.5), idf.get(0), 1e-12);
        assertEquals(Math.log(4 / 3.5), idf.get(1), 1e-12);
        assertEquals(Math.log(4 / 1.5), idf.get(2), 1e-12);
        assertEquals(idf.get(2) / (idf.get(1) + idf.get(2)), RetrieveProcedures.coverage(terms, idf,
                RetrieveProcedures.words("The silver lantern"), RetrieveProcedures.words("in rome")), 1e-12);
    }

    @Test
    void everyProcedureIsListedWithAnExample() {
        List<Map<String, Object>> listed = rows("""
                SHOW PROCEDURES YIELD name, description WHERE name STARTS WITH 'graphrag.'
                RETURN name, description ORDER BY name""", Map.of());
        assertEquals(List.of("graphrag.link.places", "graphrag.link.places.match", "graphrag.ppr",
                        "graphrag.retrieve.graph", "graphrag.retrieve.neighbours"),
                listed.stream().map(r -> r.get("name")).toList());
        for (Map<String, Object> row : listed) {
            assertTrue(row.get("description").toString().contains("Example: "), row.toString());
        }
    }
}
