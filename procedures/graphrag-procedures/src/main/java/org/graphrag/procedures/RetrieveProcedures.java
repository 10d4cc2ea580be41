package org.graphrag.procedures;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

import org.neo4j.graphdb.Direction;
import org.neo4j.graphdb.Label;
import org.neo4j.graphdb.Node;
import org.neo4j.graphdb.Relationship;
import org.neo4j.graphdb.RelationshipType;
import org.neo4j.graphdb.Transaction;
import org.neo4j.procedure.Context;
import org.neo4j.procedure.Description;
import org.neo4j.procedure.Mode;
import org.neo4j.procedure.Name;
import org.neo4j.procedure.Procedure;

/**
 * Graph retrieval's building blocks as procedures: the rows of
 * {@code cypher/queries/retrieval/seed_neighbours.cypher}, computed in one pass per seed.
 */
public class RetrieveProcedures {

    static final Label CHUNK = Label.label("Chunk");
    static final Label ENTITY = Label.label("__Entity__");
    static final Label PHRASE = Label.label("Phrase");
    static final RelationshipType HAS_PHRASE = RelationshipType.withName("HAS_PHRASE");
    static final RelationshipType MENTIONS = RelationshipType.withName("MENTIONS");

    @Context
    public Transaction tx;

    public static class Neighbour {
        public String seedId;
        public String chunkId;
        public String documentId;
        public String title;
        public String uri;
        public String text;
        public Double similarity;
        public Double seedSimilarity;
        public double weight;
        public List<String> via;
    }

    @Procedure(name = "graphrag.retrieve.neighbours", mode = Mode.READ)
    @Description("graphrag.retrieve.neighbours(seedIds, embedding, config) - the chunks each seed chunk leads to "
            + "(in another document): a shared phrase adds 1 / (chunks sharing it), phrases shared by more than "
            + "maxPhraseChunks (50) chunks ignored; a topic the seed names whose own chunk this is (a MENTIONS "
            + "rule in aboutRules, ['own-title']) adds aboutWeight (1.0). Yields seedId, chunkId, documentId, "
            + "title, uri, text, similarity (to the embedding), seedSimilarity (to the seed chunk), weight, via. "
            + "config also takes corpus, from, to. Example: MATCH (c:Chunk) WITH c LIMIT 1 "
            + "CALL graphrag.retrieve.neighbours([c.id], c.embedding, {}) YIELD chunkId, weight, via "
            + "RETURN chunkId, weight, via ORDER BY weight DESC LIMIT 5")
    public Stream<Neighbour> neighbours(
            @Name("seedIds") List<String> seedIds,
            @Name("embedding") List<Double> embedding,
            @Name(value = "config", defaultValue = "{}") Map<String, Object> config) {
        double maxPhraseChunks = ((Number) config.getOrDefault("maxPhraseChunks", 50L)).doubleValue();
        @SuppressWarnings("unchecked")
        List<String> aboutRules = (List<String>) config.getOrDefault("aboutRules", List.of("own-title"));
        double aboutWeight = ((Number) config.getOrDefault("aboutWeight", 1.0)).doubleValue();
        String corpus = (String) config.get("corpus");
        String from = (String) config.get("from");
        String to = (String) config.get("to");
        float[] query = embedding == null ? null : toFloats(embedding);
        List<Neighbour> rows = new ArrayList<>();
        for (String seedId : seedIds) {
            Node seed = seedId == null ? null : tx.findNode(CHUNK, "id", seedId);
            if (seed == null) {
                continue;
            }
            Node seedDoc = LinkProcedures.document(seed);
            if (seedDoc == null) {
                continue;
            }
            Map<Node, double[]> weights = new LinkedHashMap<>();
            Map<Node, Set<String>> vias = new LinkedHashMap<>();
            for (Relationship hp : seed.getRelationships(Direction.OUTGOING, HAS_PHRASE)) {
                Node phrase = hp.getEndNode();
                if (!phrase.hasLabel(PHRASE) || !(phrase.getProperty("chunks", null) instanceof Number chunks)
                        || chunks.doubleValue() > maxPhraseChunks) {
                    continue;
                }
                Object name = phrase.getProperty("name", null);
                for (Relationship back : phrase.getRelationships(Direction.INCOMING, HAS_PHRASE)) {
                    Node n = back.getStartNode();
                    if (n.equals(seed) || !n.hasLabel(CHUNK)) {
                        continue;
                    }
                    weights.computeIfAbsent(n, x -> new double[1])[0] += 1.0 / chunks.doubleValue();
                    if (name != null) {
                        vias.computeIfAbsent(n, x -> new LinkedHashSet<>()).add(name.toString());
                    } else {
                        vias.computeIfAbsent(n, x -> new LinkedHashSet<>());
                    }
                }
            }
            for (Relationship m1 : seed.getRelationships(Direction.OUTGOING, MENTIONS)) {
                Object rule1 = m1.getProperty("rule", null);
                Node entity = m1.getEndNode();
                if (rule1 == null || aboutRules.contains(rule1.toString()) || !entity.hasLabel(ENTITY)) {
                    continue;
                }
                Object name = entity.getProperty("name", entity.getProperty("id", null));
                for (Relationship m2 : entity.getRelationships(Direction.INCOMING, MENTIONS)) {
                    Object rule2 = m2.getProperty("rule", null);
                    Node n = m2.getStartNode();
                    if (rule2 == null || !aboutRules.contains(rule2.toString()) || n.equals(seed) || !n.hasLabel(CHUNK)) {
                        continue;
                    }
                    weights.computeIfAbsent(n, x -> new double[1])[0] += aboutWeight;
                    Set<String> v = vias.computeIfAbsent(n, x -> new LinkedHashSet<>());
                    if (name != null) {
                        v.add(name.toString());
                    }
                }
            }
            float[] seedVector = vector(seed);
            for (Map.Entry<Node, double[]> e : weights.entrySet()) {
                Node n = e.getKey();
                Node doc = LinkProcedures.document(n);
                if (doc == null || doc.equals(seedDoc) || !keep(doc, corpus, from, to)) {
                    continue;
                }
                float[] v = vector(n);
                Neighbour row = new Neighbour();
                row.seedId = seedId;
                row.chunkId = (String) n.getProperty("id", null);
                row.documentId = (String) doc.getProperty("id", null);
                row.title = (String) doc.getProperty("title", null);
                row.uri = (String) doc.getProperty("uri", null);
                row.text = (String) n.getProperty("text", null);
                row.similarity = cosine(v, query);
                row.seedSimilarity = cosine(v, seedVector);
                row.weight = e.getValue()[0];
                row.via = new ArrayList<>(vias.getOrDefault(n, Set.of())).subList(0, Math.min(3, vias.getOrDefault(n, Set.of()).size()));
                rows.add(row);
            }
        }
        return rows.stream();
    }

    private static boolean keep(Node doc, String corpus, String from, String to) {
        if (corpus != null && !corpus.equals(doc.getProperty("corpus", null))) {
            return false;
        }
        Object date = doc.getProperty("date", null);
        if (from != null && !(date instanceof String d && d.compareTo(from) >= 0)) {
            return false;
        }
        return to == null || date instanceof String d && d.compareTo(to) <= 0;
    }

    static float[] vector(Node n) {
        Object v = n.getProperty("embedding", null);
        if (v instanceof float[] f) {
            return f;
        }
        if (v instanceof double[] d) {
            float[] f = new float[d.length];
            for (int i = 0; i < d.length; i++) {
                f[i] = (float) d[i];
            }
            return f;
        }
        return null;
    }

    private static float[] toFloats(List<Double> values) {
        float[] f = new float[values.size()];
        for (int i = 0; i < f.length; i++) {
            f[i] = values.get(i).floatValue();
        }
        return f;
    }

    /** Neo4j's vector.similarity.cosine: (1 + cosine) / 2, in [0, 1]; null without two vectors of one size. */
    static Double cosine(float[] a, float[] b) {
        if (a == null || b == null || a.length != b.length || a.length == 0) {
            return null;
        }
        double dot = 0;
        double na = 0;
        double nb = 0;
        for (int i = 0; i < a.length; i++) {
            dot += (double) a[i] * b[i];
            na += (double) a[i] * a[i];
            nb += (double) b[i] * b[i];
        }
        if (na == 0 || nb == 0) {
            return null;
        }
        return (1 + dot / Math.sqrt(na * nb)) / 2;
    }
}
