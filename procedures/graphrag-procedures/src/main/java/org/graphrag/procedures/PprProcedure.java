package org.graphrag.procedures;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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
import org.neo4j.procedure.TerminationGuard;

/**
 * Personalised PageRank with weighted seeds over the chunk–phrase–entity graph.
 *
 * <p>The walk covers the seeds' two-hop neighbourhood along the configured relationship types
 * (either direction): seed → neighbour → neighbour's neighbour, never entering a node with more
 * than {@code maxDegree} such relationships (a hub phrase or entity links everything to
 * everything) unless it is a seed. Each step follows a relationship with probability proportional
 * to its type's weight among the node's relationships in that neighbourhood, and jumps back to
 * the seeds (in proportion to their weights) with probability {@code 1 - damping}. Python's
 * fallback ({@code graphrag_cypher.retrieval.ppr.weighted_ppr} over
 * {@code retrieval/ppr_subgraph.cypher}) computes the same walk.
 *
 * <p>Every parameter is checked against its bound first ({@link ProcedureConfig#PPR}: iterations at
 * most 100000, an unknown config key refused), and the walk checks the transaction's termination
 * guard on every step, so the transaction timeout ends a long call.
 */
public class PprProcedure {

    static final Label CHUNK = Label.label("Chunk");
    static final Label ENTITY = Label.label("__Entity__");

    @Context
    public Transaction tx;

    @Context
    public TerminationGuard guard;

    public static class Ranked {
        public String id;
        public Node node;
        public double score;

        Ranked(String id, Node node, double score) {
            this.id = id;
            this.node = node;
            this.score = score;
        }
    }

    @Procedure(name = "graphrag.ppr", mode = Mode.READ)
    @Description("graphrag.ppr(seeds, config) - personalised PageRank from weighted seeds (a map of Chunk or "
            + "__Entity__ id to weight) over their two-hop neighbourhood (a seed with no relationship there is left out); yields id, node, score, best first. "
            + "config: relationshipTypes (a map of type to weight; default {HAS_PHRASE: 1.0, MENTIONS: 1.0}), "
            + "damping (0.5), iterations (30, at most 100000), tolerance (1e-10), maxDegree (50), labels (['Chunk']: "
            + "what is yielded), k (20, at most 10000); an unknown key or a value out of range is refused, and the "
            + "transaction timeout ends a long walk. At most 10000 seeds. "
            + "Example: CALL graphrag.ppr({`0::0`: 1.0, `12::0`: 0.5}, {damping: 0.5, k: 5}) "
            + "YIELD node, score RETURN node.id, score")
    public Stream<Ranked> ppr(
            @Name("seeds") Map<String, Object> seeds,
            @Name(value = "config", defaultValue = "{}") Map<String, Object> config) {
        ProcedureConfig.checkSeeds("graphrag.ppr", seeds);
        Settings s = new Settings(config == null ? Map.of() : config);
        Map<Node, Double> restart = new LinkedHashMap<>();
        for (Map.Entry<String, Object> e : seeds.entrySet()) {
            check();
            double w = ((Number) e.getValue()).doubleValue();
            Node n = tx.findNode(CHUNK, "id", e.getKey());
            if (n == null) {
                n = tx.findNode(ENTITY, "id", e.getKey());
            }
            if (n != null && w > 0) {
                restart.merge(n, w, Double::sum);
            }
        }
        if (restart.isEmpty()) {
            return Stream.empty();
        }
        Map<Node, Integer> index = new HashMap<>();
        List<Node> nodes = new ArrayList<>();
        for (Node n : restart.keySet()) {
            index.put(n, nodes.size());
            nodes.add(n);
        }
        // the neighbourhood's relationships, each once
        Map<String, double[]> edges = new LinkedHashMap<>(); // element id -> [a, b, weight]
        List<Node> frontier = new ArrayList<>(nodes);
        Map<Node, Boolean> enterable = new HashMap<>();
        for (int hop = 0; hop < 2; hop++) {
            List<Node> next = new ArrayList<>();
            for (Node u : frontier) {
                check();
                for (Relationship r : u.getRelationships(Direction.BOTH, s.types)) {
                    Node v = r.getOtherNode(u);
                    if (!restart.containsKey(v) && !enterable.computeIfAbsent(v, x -> degree(x, s) <= s.maxDegree)) {
                        continue;
                    }
                    Integer vi = index.get(v);
                    if (vi == null) {
                        vi = nodes.size();
                        index.put(v, vi);
                        nodes.add(v);
                        next.add(v);
                    }
                    edges.putIfAbsent(r.getElementId(), new double[] {index.get(u), vi, s.weights.get(r.getType().name())});
                }
            }
            frontier = next;
        }
        int n = nodes.size();
        double[] out = new double[n];
        for (double[] e : edges.values()) {
            out[(int) e[0]] += e[2];
            out[(int) e[1]] += e[2];
        }
        // A seed with no relationship in the neighbourhood has nowhere to walk: it is left out.
        double[] p = new double[n];
        double kept = 0;
        for (Map.Entry<Node, Double> e : restart.entrySet()) {
            int i = index.get(e.getKey());
            if (out[i] > 0) {
                p[i] = e.getValue();
                kept += e.getValue();
            }
        }
        if (kept == 0) {
            return Stream.empty();
        }
        for (int i = 0; i < n; i++) {
            p[i] /= kept;
        }
        double[] x = p.clone();
        for (int it = 0; it < s.iterations; it++) {
            check();
            double[] y = new double[n];
            for (double[] e : edges.values()) { // no node without a relationship is in the walk
                int a = (int) e[0];
                int b = (int) e[1];
                y[b] += x[a] * e[2] / out[a];
                y[a] += x[b] * e[2] / out[b];
            }
            double delta = 0;
            for (int i = 0; i < n; i++) {
                double v = (1 - s.damping) * p[i] + s.damping * y[i];
                delta += Math.abs(v - x[i]);
                y[i] = v;
            }
            x = y;
            if (delta < s.tolerance) {
                break;
            }
        }
        List<Ranked> ranked = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            Node node = nodes.get(i);
            if (x[i] > 0 && s.labels.stream().anyMatch(l -> node.hasLabel(Label.label(l)))) {
                ranked.add(new Ranked(String.valueOf(node.getProperty("id", node.getElementId())), node, x[i]));
            }
        }
        // Best first; scores equal to 12 decimals (ties, up to rounding) by id, as Python orders them.
        ranked.sort((a, b) -> {
            long ra = Math.round(a.score * 1e12);
            long rb = Math.round(b.score * 1e12);
            return ra != rb ? Long.compare(rb, ra) : a.id.compareTo(b.id);
        });
        return ranked.stream().limit(s.k);
    }

    /** Ends the call when its transaction was terminated or ran past its timeout. */
    private void check() {
        if (guard != null) {
            guard.check();
        }
    }

    private static int degree(Node v, Settings s) {
        int d = 0;
        for (RelationshipType t : s.types) {
            d += v.getDegree(t, Direction.BOTH);
        }
        return d;
    }

    static final class Settings {
        final Map<String, Double> weights = new LinkedHashMap<>();
        final RelationshipType[] types;
        final double damping;
        final int iterations;
        final double tolerance;
        final int maxDegree;
        final List<String> labels;
        final long k;

        @SuppressWarnings("unchecked")
        Settings(Map<String, Object> config) {
            ProcedureConfig.check("graphrag.ppr", config, ProcedureConfig.PPR);
            Object t = config.get("relationshipTypes");
            Map<String, Object> types = t == null ? Map.of("HAS_PHRASE", 1.0, "MENTIONS", 1.0) : (Map<String, Object>) t;
            for (Map.Entry<String, Object> e : types.entrySet()) {
                double w = ((Number) e.getValue()).doubleValue();
                if (w > 0) {
                    weights.put(e.getKey(), w);
                }
            }
            this.types = weights.keySet().stream().map(RelationshipType::withName).toArray(RelationshipType[]::new);
            damping = RetrieveProcedures.number(config, "damping", 0.5).doubleValue();
            iterations = RetrieveProcedures.number(config, "iterations", 30L).intValue();
            tolerance = RetrieveProcedures.number(config, "tolerance", 1e-10).doubleValue();
            maxDegree = RetrieveProcedures.number(config, "maxDegree", 50L).intValue();
            labels = config.get("labels") == null ? List.of("Chunk") : (List<String>) config.get("labels");
            k = RetrieveProcedures.number(config, "k", 20L).longValue();
        }
    }
}
