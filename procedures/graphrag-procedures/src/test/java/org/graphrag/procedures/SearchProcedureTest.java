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
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.graphdb.QueryExecutionException;
import org.neo4j.kernel.api.procedure.GlobalProcedures;

/** graphrag.search and graphrag.search.analysis through Cypher in an embedded Neo4j, chunks embedded by the model. */
class SearchProcedureTest {

    @TempDir
    static Path dir;

    private static EmbeddedNeo4j neo4j;
    private static GraphDatabaseService db;

    @BeforeAll
    static void startNeo4j() throws Exception {
        Path models = EmbeddedNeo4j.exportedModelsOrSkip();
        neo4j = EmbeddedNeo4j.start(dir);
        db = neo4j.db;
        GlobalProcedures procedures = neo4j.procedures;
        procedures.registerFunction(EmbedFunctions.class);
        procedures.registerFunction(TextFunctions.class);
        procedures.registerProcedure(RetrieveProcedures.class);
        procedures.registerProcedure(SearchProcedure.class);
        db.executeTransactionally("""
                CREATE (d1:Document {id: 'd1', title: 'The Silver Lantern', corpus: 'tales'}),
                       (d2:Document {id: 'd2', title: 'Harbours', corpus: 'wiki'}),
                       (:Chunk {id: 'a', text: 'Edric Varn stole the silver lantern from the chapel at night.'})-[:FROM_DOCUMENT]->(d1),
                       (:Chunk {id: 'b', text: 'The smith of Dunmere made the silver lantern.'})-[:FROM_DOCUMENT]->(d1),
                       (:Chunk {id: 'c', text: 'The harbour of Ephesus silted up from the river.'})-[:FROM_DOCUMENT]->(d2),
                       (:__Entity__:Person {id: 'p:edric-varn', name: 'Edric Varn', aliases: ['the Young Stag']}),
                       (:__Entity__:Person {id: 'p:edric', name: 'Edric'}),
                       (:__Entity__:Place {id: 'pl:dunmere', name: 'Dunmere'})
                """);
        db.executeTransactionally("MATCH (c:Chunk) SET c.embedding = graphrag.embed(c.text)");
        db.executeTransactionally("CREATE VECTOR INDEX chunk_embedding FOR (c:Chunk) ON c.embedding OPTIONS "
                + "{indexConfig: {`vector.dimensions`: 384, `vector.similarity_function`: 'cosine'}}");
        db.executeTransactionally("CREATE FULLTEXT INDEX chunk_text FOR (c:Chunk) ON EACH [c.text]");
        db.executeTransactionally("CREATE FULLTEXT INDEX entity_names FOR (e:__Entity__) ON EACH [e.name, e.aliases]");
        db.executeTransactionally("CALL db.awaitIndexes(60)");
    }

    @AfterAll
    static void stopNeo4j() {
        System.clearProperty(Embedder.DIR_PROPERTY);
        if (neo4j != null) {
            neo4j.close();
        }
    }

    private static List<Map<String, Object>> rows(String cypher, Map<String, Object> params) {
        return neo4j.rows(cypher, params);
    }

    @Test
    void analysisFindsKeywordsAndTheLongerOfNestedNames() {
        Map<String, Object> a = rows("CALL graphrag.search.analysis($q) YIELD keywords, query, entityIds "
                + "RETURN keywords, query, entityIds", Map.of("q", "What did ÉDRIC VARN take from Dunmere?")).get(0);
        assertEquals(List.of("ÉDRIC", "VARN", "take", "Dunmere"), a.get("keywords"));
        assertEquals("ÉDRIC VARN take Dunmere", a.get("query"));
        // "Edric" lies inside "Edric Varn": only the longer name counts; in the order the question names them
        assertEquals(List.of("p:edric-varn", "pl:dunmere"), a.get("entityIds"));
    }

    @Test
    void searchRanksAsTheModesItStandsFor() {
        String q = "Who stole the silver lantern?";
        List<Map<String, Object>> vector = rows("CALL graphrag.search($q, {mode: 'vector', k: 3}) YIELD rank, chunkId, "
                + "score RETURN rank, chunkId, score", Map.of("q", q));
        assertEquals(List.of(1L, 2L, 3L), vector.stream().map(r -> r.get("rank")).toList());
        assertEquals("a", vector.get(0).get("chunkId"));
        List<Map<String, Object>> direct = rows("CALL db.index.vector.queryNodes('chunk_embedding', 3, graphrag.embed($q)) "
                + "YIELD node, score RETURN node.id AS chunkId, score", Map.of("q", q));
        assertEquals(direct.stream().map(r -> r.get("chunkId")).toList(), vector.stream().map(r -> r.get("chunkId")).toList());
        assertEquals((double) direct.get(0).get("score"), (double) vector.get(0).get("score"), 1e-12);
        // graph mode: graphrag.retrieve.graph with the question's vector, query, terms and entities
        List<Object> graph = rows("CALL graphrag.search($q, {k: 3}) YIELD chunkId RETURN chunkId", Map.of("q", q))
                .stream().map(r -> r.get("chunkId")).toList();
        List<Object> retrieve = rows("CALL graphrag.retrieve.graph(graphrag.embed($q), 'stole silver lantern', "
                + "{k: 3, linkSeeds: 3, terms: ['stole', 'silver', 'lantern']}) YIELD chunkId RETURN chunkId",
                Map.of("q", q)).stream().map(r -> r.get("chunkId")).toList();
        assertEquals(retrieve, graph);
        List<Object> hybrid = rows("CALL graphrag.search($q, {mode: 'hybrid', k: 2, corpus: 'wiki'}) YIELD chunkId "
                + "RETURN chunkId", Map.of("q", q)).stream().map(r -> r.get("chunkId")).toList();
        assertEquals(List.of("c"), hybrid, "the filter holds");
    }

    @Test
    void badInputSaysWhatIsWrong() {
        QueryExecutionException e = assertThrows(QueryExecutionException.class,
                () -> rows("CALL graphrag.search('x', {mode: 'ppr'}) YIELD chunkId RETURN chunkId", Map.of()));
        assertTrue(e.getMessage().contains("unknown mode 'ppr': choose one of graph, hybrid, vector"), e.getMessage());
        assertEquals(List.of(), rows("CALL graphrag.search('  ') YIELD chunkId RETURN chunkId", Map.of()));
        e = assertThrows(QueryExecutionException.class,
                () -> rows("CALL graphrag.search('lantern', {k: 0}) YIELD chunkId RETURN chunkId", Map.of()));
        assertTrue(e.getMessage().contains("config k must be a whole number from 1 to 1000, not 0"), e.getMessage());
    }
}
