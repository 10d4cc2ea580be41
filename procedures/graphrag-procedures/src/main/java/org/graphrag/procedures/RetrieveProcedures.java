package org.graphrag.procedures;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.neo4j.graphdb.Direction;
import org.neo4j.graphdb.Label;
import org.neo4j.graphdb.Node;
import org.neo4j.graphdb.Relationship;
import org.neo4j.graphdb.RelationshipType;
import org.neo4j.graphdb.ResourceIterator;
import org.neo4j.graphdb.Result;
import org.neo4j.graphdb.Transaction;
import org.neo4j.procedure.Context;
import org.neo4j.procedure.Description;
import org.neo4j.procedure.Mode;
import org.neo4j.procedure.Name;
import org.neo4j.procedure.Procedure;
import org.neo4j.procedure.TerminationGuard;

/**
 * Graph retrieval inside Neo4j: the rows of {@code cypher/queries/retrieval/seed_neighbours.cypher}
 * ({@code graphrag.retrieve.neighbours}), and the whole {@code graph} mode
 * ({@code graphrag.retrieve.graph}: what {@code GraphRetriever.rank} computes from
 * {@code retrieval/hybrid.cypher}, {@code entity_chunks.cypher}, {@code seed_neighbours.cypher} and
 * its Python placing), in one call. Every number is computed as the Cypher files compute it (the
 * same cosine, the same double arithmetic in the same order), so the order and the cuts are theirs.
 */
public class RetrieveProcedures {

    static final Label CHUNK = Label.label("Chunk");
    static final Label DOCUMENT = Label.label("Document");
    static final Label ENTITY = Label.label("__Entity__");
    static final Label PHRASE = Label.label("Phrase");
    static final RelationshipType HAS_PHRASE = RelationshipType.withName("HAS_PHRASE");
    static final RelationshipType MENTIONS = RelationshipType.withName("MENTIONS");
    static final RelationshipType FROM_DOCUMENT = RelationshipType.withName("FROM_DOCUMENT");

    // The calls of the two indexes (the first lines of each branch of retrieval/hybrid.cypher).
    private static final String VECTOR_QUERY =
            "CALL db.index.vector.queryNodes($index, $fetch, $embedding) YIELD node, score RETURN node, score";
    private static final String FULLTEXT_QUERY =
            "CALL db.index.fulltext.queryNodes($index, $query, {limit: $fetch}) YIELD node, score RETURN node, score";

    @Context
    public Transaction tx;

    @Context
    public TerminationGuard guard;

    /** Ends the call when its transaction was terminated or ran past its timeout. */
    void check() {
        if (guard != null) {
            guard.check();
        }
    }

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
        public Double strength;
        public List<String> via;
    }

    /** A neighbour row and where its text columns are read from, once it survives the cut. */
    private record Candidate(Neighbour row, Node node, Node document) {}

    public static class Ranked {
        public String chunkId;
        public String documentId;
        public String title;
        public String uri;
        public String text;
        public double score;
        public List<String> via;
    }

    /** The settings both procedures read from their config map (defaults: the graph mode's weights). */
    static final class Settings {
        /** The phrase cut-off: a phrase more chunks share than this links nothing (sizedTo raises it with the graph). */
        double maxPhraseChunks;
        final double phraseChunksShare;
        final double phraseCap;
        final List<String> aboutRules;
        final double aboutWeight;
        final double linkWeight;
        /** A seed's most strongly linked neighbours that are scored (with those among the question's hits). */
        final long leadPool;
        /** How many of the question's nearest chunks (the vector index) are scored whenever they are neighbours. */
        final long leadHits;
        /** The question's nearest leadHits chunks, by the vector index (set by nearTo). */
        Set<Node> hits = Set.of();
        final long perSeed;
        final String corpus;
        /** The corpora of the server key a question is asked for (null: every corpus); none of them: nothing. */
        final Set<String> corpora;
        final String from;
        final String to;
        /** Entity ids: only chunks that MENTION one of them count (null: every chunk). */
        final Set<String> about;

        Settings(Map<String, Object> config) {
            maxPhraseChunks = number(config, "maxPhraseChunks", 50).doubleValue();
            phraseChunksShare = number(config, "phraseChunksShare", 0.02).doubleValue();
            phraseCap = number(config, "phraseCap", 1.0).doubleValue();
            aboutRules = strings(config, "aboutRules", List.of("own-title"));
            aboutWeight = number(config, "aboutWeight", 1.0).doubleValue();
            linkWeight = number(config, "linkWeight", 0.4).doubleValue();
            leadPool = number(config, "leadPool", 60).longValue();
            leadHits = number(config, "leadHits", 300).longValue();
            perSeed = number(config, "perSeed", number(config, "leadsPerSeed", 20)).longValue();
            corpus = (String) config.get("corpus");
            corpora = config.get("corpora") instanceof List<?> ? new HashSet<>(strings(config, "corpora", List.of())) : null;
            from = (String) config.get("from");
            to = (String) config.get("to");
            about = ids(config.get("about"));
        }

        /** The cut-off grows with the graph: max(maxPhraseChunks, phraseChunksShare x chunks), as
         *  seed_neighbours.cypher computes it (a name in 2% of a large corpus is as common as one in 50
         *  of 2,500 passages). The chunk count is Neo4j's count store: no scan. */
        Settings sizedTo(Transaction tx) {
            try (Result r = tx.execute("MATCH (c:Chunk) RETURN count(c) AS chunks")) {
                long chunks = ((Number) r.next().get("chunks")).longValue();
                maxPhraseChunks = Math.max(maxPhraseChunks, phraseChunksShare * chunks);
            }
            return this;
        }

        /** The question's leadHits nearest chunks (seed_neighbours.cypher's hits): a neighbour among them is
         *  scored however weakly it is linked, the others only when among the leadPool most strongly linked. */
        Settings nearTo(Transaction tx, List<Double> embedding, String index) {
            if (leadHits <= 0 || !hasIndex(tx, index)) {
                return this;  // without the index (no graph mode then) only the leadPool are scored
            }
            Map<String, Object> params = new HashMap<>();
            params.put("index", index);
            params.put("fetch", leadHits);
            params.put("embedding", embedding);
            Set<Node> near = new HashSet<>();
            try (Result r = tx.execute(VECTOR_QUERY, params)) {
                while (r.hasNext()) {
                    near.add((Node) r.next().get("node"));
                }
            }
            hits = near;
            return this;
        }

        private static boolean hasIndex(Transaction tx, String index) {
            try {
                tx.schema().getIndexByName(index);
                return true;
            } catch (IllegalArgumentException e) {
                return false;
            }
        }

        boolean filtered() {
            return corpus != null || corpora != null || from != null || to != null;
        }

        /** The retrieval queries' about filter: the chunk MENTIONS one of the entities (always, without one). */
        boolean linked(Node chunk) {
            if (about == null) {
                return true;
            }
            for (Relationship m : chunk.getRelationships(Direction.OUTGOING, MENTIONS)) {
                Node e = m.getEndNode();
                if (e.hasLabel(ENTITY) && e.getProperty("id", null) instanceof String id && about.contains(id)) {
                    return true;
                }
            }
            return false;
        }

        /** The document filters of every retrieval query: corpus, and dates compared as text. */
        boolean keep(Node doc) {
            if (corpus != null && !corpus.equals(doc.getProperty("corpus", null))) {
                return false;
            }
            if (corpora != null && !corpora.contains(doc.getProperty("corpus", null))) {
                return false;
            }
            Object date = doc.getProperty("date", null);
            if (from != null && !(date instanceof String d && d.compareTo(from) >= 0)) {
                return false;
            }
            return to == null || date instanceof String d && d.compareTo(to) <= 0;
        }
    }

    @Procedure(name = "graphrag.retrieve.neighbours", mode = Mode.READ)
    @Description("graphrag.retrieve.neighbours(seedIds, embedding, config) - the chunks each seed chunk leads to "
            + "in another document, the strongest perSeed (20) per seed: a shared phrase adds 1 / (chunks sharing "
            + "it), ignoring phrases more than max(maxPhraseChunks (50), phraseChunksShare (0.02) x chunks) chunks share, all together at most phraseCap "
            + "(1.0); a topic the seed names whose own chunk this is (a MENTIONS rule in aboutRules, ['own-title']) "
            + "adds aboutWeight (1.0). strength = cosine with what the embedding asks beyond the seed + linkWeight "
            + "(0.4) x weight. Only the leadPool (60) most strongly linked neighbours and those among the question's "
            + "leadHits (300) nearest chunks (the vectorIndex, 'chunk_embedding') are scored: no other vector is read. "
            + "Yields seedId, chunkId, documentId, title, uri, text, similarity (cosine with the "
            + "embedding), seedSimilarity (cosine with the seed), weight, strength, via; config also takes corpus, "
            + "from, to and about (entity ids: only chunks that MENTION one of them). The rows of cypher/queries/retrieval/seed_neighbours.cypher. Example: MATCH (c:Chunk) WITH "
            + "c LIMIT 1 CALL graphrag.retrieve.neighbours([c.id], c.embedding, {perSeed: 5}) YIELD chunkId, "
            + "strength, via RETURN chunkId, strength, via")
    public Stream<Neighbour> neighbours(
            @Name("seedIds") List<String> seedIds,
            @Name("embedding") List<Double> embedding,
            @Name(value = "config", defaultValue = "{}") Map<String, Object> config) {
        config = config == null ? Map.of() : config;
        ProcedureConfig.check("graphrag.retrieve.neighbours", config, ProcedureConfig.NEIGHBOURS);
        ProcedureConfig.checkIds("graphrag.retrieve.neighbours", "seedIds", seedIds);
        ProcedureConfig.checkEmbedding("graphrag.retrieve.neighbours", embedding);
        Settings settings = new Settings(config).sizedTo(tx)
                .nearTo(tx, embedding, text(config, "vectorIndex", "chunk_embedding"));
        float[] query = Vectors.of(embedding);
        Map<Node, float[]> vectors = new HashMap<>();
        List<Neighbour> rows = new ArrayList<>();
        for (String seedId : new LinkedHashSet<>(seedIds)) {
            check();
            rows.addAll(neighboursOf(seedId, query, settings, vectors));
        }
        return rows.stream();
    }

    /** seed_neighbours.cypher for one seed: its strongest `perSeed` neighbours, strongest first. */
    private List<Neighbour> neighboursOf(String seedId, float[] query, Settings s, Map<Node, float[]> vectors) {
        List<Neighbour> rows = new ArrayList<>();
        if (seedId == null) {
            return rows;
        }
        try (ResourceIterator<Node> found = tx.findNodes(CHUNK, "id", seedId)) {
            while (found.hasNext()) {
                Node seed = found.next();
                for (Node seedDoc : documents(seed)) {
                    rows.addAll(neighboursOf(seedId, seed, seedDoc, query, s, vectors));
                }
            }
        }
        return rows;
    }

    private List<Neighbour> neighboursOf(
            String seedId, Node seed, Node seedDoc, float[] query, Settings s, Map<Node, float[]> vectors) {
        float[] seedVector = vectors.computeIfAbsent(seed, Vectors::of);
        Double qs = Vectors.cosine(seedVector, query);
        // sum(w), sum(t) and collect(DISTINCT via) per neighbour, phrases first (UNION ALL order)
        Map<Node, double[]> sums = new LinkedHashMap<>();
        Map<Node, Set<String>> vias = new HashMap<>();
        for (Relationship hp : seed.getRelationships(Direction.OUTGOING, HAS_PHRASE)) {
            Node phrase = hp.getEndNode();
            if (!phrase.hasLabel(PHRASE) || !(phrase.getProperty("chunks", null) instanceof Number chunks)
                    || chunks.doubleValue() > s.maxPhraseChunks) {
                continue;
            }
            double w = chunks instanceof Double || chunks instanceof Float
                    ? 1.0 / chunks.doubleValue() : 1.0 / chunks.longValue();
            Object name = phrase.getProperty("name", null);
            check();
            for (Relationship back : phrase.getRelationships(Direction.INCOMING, HAS_PHRASE)) {
                Node n = back.getStartNode();
                if (n.equals(seed) || !n.hasLabel(CHUNK)) {
                    continue;
                }
                sums.computeIfAbsent(n, x -> new double[2])[0] += w;
                Set<String> v = vias.computeIfAbsent(n, x -> new LinkedHashSet<>());
                if (name != null) {
                    v.add(name.toString());
                }
            }
        }
        for (Relationship m1 : seed.getRelationships(Direction.OUTGOING, MENTIONS)) {
            Node entity = m1.getEndNode();
            if (!(m1.getProperty("rule", null) instanceof String rule1) || s.aboutRules.contains(rule1)
                    || !entity.hasLabel(ENTITY)) {
                continue;
            }
            Object name = entity.getProperty("name", null);
            if (name == null) {
                name = entity.getProperty("id", null);
            }
            check();
            for (Relationship m2 : entity.getRelationships(Direction.INCOMING, MENTIONS)) {
                Node n = m2.getStartNode();
                if (!(m2.getProperty("rule", null) instanceof String rule2) || !s.aboutRules.contains(rule2)
                        || n.equals(seed) || !n.hasLabel(CHUNK)) {
                    continue;
                }
                sums.computeIfAbsent(n, x -> new double[2])[1] += s.aboutWeight;
                Set<String> v = vias.computeIfAbsent(n, x -> new LinkedHashSet<>());
                if (name != null) {
                    v.add(name.toString());
                }
            }
        }
        List<Candidate> linked = new ArrayList<>();
        for (Map.Entry<Node, double[]> e : sums.entrySet()) {
            Node n = e.getKey();
            if (!s.linked(n)) {
                continue;
            }
            double phrases = e.getValue()[0];
            double weight = (phrases > s.phraseCap ? s.phraseCap : phrases) + e.getValue()[1];
            for (Node doc : documents(n)) {
                if (doc.equals(seedDoc) || !s.keep(doc)) {
                    continue;
                }
                Neighbour row = new Neighbour();
                row.seedId = seedId;
                row.chunkId = (String) n.getProperty("id", null);
                row.weight = weight;
                linked.add(new Candidate(row, n, doc));
            }
        }
        // ORDER BY weight DESC, n.id: the leadPool most strongly linked and those among the question's hits
        // are scored (their vectors the only ones read); the others are weakly linked and far from the question
        linked.sort(Comparator.comparing((Candidate c) -> c.row().weight, RetrieveProcedures::descending)
                .thenComparing(c -> c.row().chunkId, Comparator.nullsLast(PyText.ORDER)));
        List<Candidate> rows = new ArrayList<>();
        for (int i = 0; i < linked.size(); i++) {
            Candidate c = linked.get(i);
            Node n = c.node();
            if (i >= s.leadPool && !s.hits.contains(n)) {
                continue;
            }
            check();
            Neighbour row = c.row();
            float[] v = vectors.computeIfAbsent(n, Vectors::of);
            Double qn = Vectors.cosine(v, query);
            Double sn = Vectors.cosine(v, seedVector);
            row.similarity = qn;
            row.seedSimilarity = sn;
            if (qn != null && sn != null && qs != null) {
                double rest = 1 - qs * qs < 0.01 ? 0.01 : 1 - qs * qs;
                row.strength = (qn - qs * sn) / Math.sqrt(rest) + s.linkWeight * row.weight;
            }
            List<String> names = new ArrayList<>(vias.getOrDefault(n, Set.of()));
            row.via = new ArrayList<>(names.subList(0, Math.min(3, names.size())));
            rows.add(c);
        }
        // ORDER BY strength DESC, n.id (Cypher: null above every number, so first when descending)
        rows.sort(Comparator.comparing((Candidate c) -> c.row().strength,
                        Comparator.nullsFirst(RetrieveProcedures::descending))
                .thenComparing(c -> c.row().chunkId, Comparator.nullsLast(PyText.ORDER)));
        List<Neighbour> top = new ArrayList<>();
        for (Candidate c : rows.subList(0, (int) Math.max(0, Math.min(rows.size(), s.perSeed)))) {
            Neighbour row = c.row();  // the text columns of the rows kept only
            row.documentId = (String) c.document().getProperty("id", null);
            row.title = (String) c.document().getProperty("title", null);
            row.uri = (String) c.document().getProperty("uri", null);
            row.text = (String) c.node().getProperty("text", null);
            top.add(row);
        }
        return top;
    }

    @Procedure(name = "graphrag.retrieve.graph", mode = Mode.READ)
    @Description("graphrag.retrieve.graph(embedding, query, config) - the graph retrieval mode in one call: hybrid "
            + "seeds (the vector index and the full-text index fused by weighted reciprocal rank), the chunks about "
            + "the question's entities right after the first, then after each of the top linkSeeds (10) seeds the "
            + "neighbour it leads to through a shared phrase or a topic it names, the one that answers most of what "
            + "the question asks beyond the seed. embedding: the question's vector; query: a Lucene query ('' for "
            + "vectors only). config: k (5), entityIds, terms (the question's keywords, for coverage), corpus, from, "
            + "to, about (entity ids: only chunks that MENTION one of them; the vector list is then those chunks "
            + "ranked by cosine), and the weights of the graph mode (graphCandidates 30, linkSeeds 10, linksPerSeed 1, leadsPerSeed "
            + "20, leadPool 60, leadHits 300, linkWeight 0.4, coverWeight 0.4, phraseCap 1.0, maxPhraseChunks 50, phraseChunksShare 0.02, aboutWeight 1.0, aboutRules "
            + "['own-title'], perEntity 20, vectorWeight 1.0, fulltextWeight 0.5, rrfK 60, fetch, vectorIndex "
            + "'chunk_embedding', fulltextIndex 'chunk_text'), spare (0: rows past k, the same ranking's next ones); an unknown key or a value out of range (k: 1 to 1000) is "
            + "refused, and so is a query of more than 10000 characters. "
            + "Yields chunkId, documentId, title, uri, text, score, "
            + "via, best first. A chunk's vector can stand in for a question's. Example: MATCH (c:Chunk) WITH c LIMIT 1 "
            + "CALL graphrag.retrieve.graph(c.embedding, 'silver lantern', {k: 5, terms: ['silver', 'lantern']}) "
            + "YIELD chunkId, title, via RETURN chunkId, title, via")
    public Stream<Ranked> graph(
            @Name("embedding") List<Double> embedding,
            @Name("query") String query,
            @Name(value = "config", defaultValue = "{}") Map<String, Object> config) {
        config = config == null ? Map.of() : config;
        ProcedureConfig.check("graphrag.retrieve.graph", config, ProcedureConfig.GRAPH);
        ProcedureConfig.checkEmbedding("graphrag.retrieve.graph", embedding);
        ProcedureConfig.checkQuery("graphrag.retrieve.graph", query);
        Settings s = new Settings(config).sizedTo(tx).nearTo(tx, embedding, text(config, "vectorIndex", "chunk_embedding"));
        long k = number(config, "k", 5).longValue();
        long candidates = Math.max(k, number(config, "graphCandidates", 30).longValue());
        long fetch = config.get("fetch") instanceof Number f
                ? f.longValue() : SearchProcedure.fetchSize(candidates, s.filtered(), s.about != null);
        List<Ranked> seeds = hybrid(embedding, query, candidates, fetch, s, config);
        if (seeds.isEmpty() || k <= 0) {
            return Stream.empty();
        }
        List<Ranked> order = new ArrayList<>();
        order.add(seeds.get(0));
        order.addAll(aboutEntities(strings(config, "entityIds", List.of()), number(config, "perEntity", 20).longValue(),
                seeds.get(0).score, s));
        order.addAll(seeds.subList(1, seeds.size()));
        List<Ranked> sequence = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        for (Ranked r : order) {
            if (seen.add(r.chunkId)) {
                sequence.add(r);
            }
        }
        int linkSeeds = (int) Math.max(0, Math.min(sequence.size(), number(config, "linkSeeds", 10).longValue()));
        float[] question = Vectors.of(embedding);
        Map<Node, float[]> vectors = new HashMap<>();
        Map<String, List<Neighbour>> leads = new HashMap<>();
        for (Ranked seed : sequence.subList(0, linkSeeds)) {
            check();
            leads.computeIfAbsent(seed.chunkId, id -> neighboursOf(id, question, s, vectors));
        }
        Map<String, Set<String>> wordsOf = new HashMap<>();  // by text: neighbours recur across seeds
        // graph.py's term_weights: each term's idf over the candidates (the sequence, then the leads)
        Map<String, Set<String>> pool = new LinkedHashMap<>();
        for (Ranked r : sequence) {
            pool.putIfAbsent(r.chunkId, wordsOf.computeIfAbsent(r.text == null ? "" : r.text, RetrieveProcedures::words));
        }
        for (Ranked seed : sequence.subList(0, linkSeeds)) {
            for (Neighbour r : leads.getOrDefault(seed.chunkId, List.of())) {
                pool.computeIfAbsent(r.chunkId,
                        id -> wordsOf.computeIfAbsent(r.text == null ? "" : r.text, RetrieveProcedures::words));
            }
        }
        Map<String, Set<String>> termWords = new LinkedHashMap<>();
        for (String term : strings(config, "terms", List.of())) {
            termWords.putIfAbsent(term, words(term));
        }
        List<Set<String>> terms = new ArrayList<>(termWords.values());
        List<Double> termWeights = termWeights(terms, pool.values());
        double coverWeight = number(config, "coverWeight", 0.4).doubleValue();
        long linksPerSeed = number(config, "linksPerSeed", 1).longValue();
        List<Ranked> ranked = new ArrayList<>();
        Set<String> placed = new HashSet<>();
        for (Ranked seed : sequence) {
            check();
            if (placed.add(seed.chunkId)) {
                ranked.add(seed);
            }
            List<Neighbour> rows = new ArrayList<>();
            for (Neighbour r : leads.getOrDefault(seed.chunkId, List.of())) {
                if (!placed.contains(r.chunkId)) {
                    rows.add(r);
                }
            }
            if (rows.isEmpty()) {
                continue;
            }
            Set<String> seedWords =
                    wordsOf.computeIfAbsent(seed.text == null ? "" : seed.text, RetrieveProcedures::words);
            List<Map.Entry<Double, Neighbour>> scored = new ArrayList<>();
            for (Neighbour r : rows) {
                double strength = r.strength == null ? Double.NaN : r.strength;
                scored.add(Map.entry(-(strength + coverWeight * coverage(terms, termWeights, seedWords,
                        wordsOf.computeIfAbsent(r.text == null ? "" : r.text, RetrieveProcedures::words))), r));
            }
            // Python's sorted by (-(strength + coverWeight x coverage), chunkId)
            scored.sort(Comparator.comparing((Map.Entry<Double, Neighbour> e) -> e.getKey(), RetrieveProcedures::ascending)
                    .thenComparing(e -> e.getValue().chunkId, PyText.ORDER));
            for (Map.Entry<Double, Neighbour> e : scored.subList(0, (int) Math.min(scored.size(), linksPerSeed))) {
                Neighbour n = e.getValue();
                if (placed.add(n.chunkId)) {
                    ranked.add(ranked(n.chunkId, n.documentId, n.title, n.uri, n.text, seed.score,
                            List.of("linked by " + String.join(", ", n.via) + " from " + seed.chunkId)));
                }
            }
        }
        // the best k, then up to spare more of the same ranking (copies set aside are replaced from them)
        long spare = number(config, "spare", 0).longValue();
        return ranked.subList(0, (int) Math.min(ranked.size(), k + spare)).stream();
    }

    /**
     * retrieval/hybrid.cypher: the vector and full-text lists (each filtered, then ranked), fused by
     * weighted reciprocal rank, best `limit` first (ties by chunk id).
     */
    private List<Ranked> hybrid(
            List<Double> embedding, String query, long limit, long fetch, Settings s, Map<String, Object> config) {
        double vectorWeight = number(config, "vectorWeight", 1.0).doubleValue();
        double fulltextWeight = number(config, "fulltextWeight", 0.5).doubleValue();
        double rrfK = number(config, "rrfK", 60).doubleValue();
        Map<Node, double[]> scores = new LinkedHashMap<>();
        Map<Node, List<String>> vias = new HashMap<>();
        Map<String, Object> params = new HashMap<>();
        params.put("fetch", fetch);
        params.put("embedding", embedding);
        params.put("index", text(config, "vectorIndex", "chunk_embedding"));
        fuse(s.about == null ? filteredHits(VECTOR_QUERY, params, s) : linkedHits(embedding, s), vectorWeight, rrfK,
                "vector#", scores, vias);
        if (query != null && !query.isEmpty()) {
            params.remove("embedding");
            params.put("query", query);
            params.put("index", text(config, "fulltextIndex", "chunk_text"));
            fuse(filteredHits(FULLTEXT_QUERY, params, s), fulltextWeight, rrfK, "fulltext#", scores, vias);
        }
        List<Ranked> rows = new ArrayList<>();
        for (Map.Entry<Node, double[]> e : scores.entrySet()) {
            for (Node doc : documents(e.getKey())) {
                rows.add(ranked(e.getKey(), doc, e.getValue()[0], vias.get(e.getKey())));
            }
        }
        rows.sort(Comparator.comparing((Ranked r) -> r.score, RetrieveProcedures::descending)
                .thenComparing(r -> r.chunkId, Comparator.nullsLast(PyText.ORDER)));
        return rows.size() > limit ? new ArrayList<>(rows.subList(0, (int) limit)) : rows;
    }

    /** The index's hits whose document passes the filters, best first (a stable sort, as Cypher's). */
    private List<Node> filteredHits(String cypher, Map<String, Object> params, Settings s) {
        List<Map.Entry<Node, Double>> hits = new ArrayList<>();
        try (Result result = tx.execute(cypher, params)) {
            while (result.hasNext()) {
                check();
                Map<String, Object> row = result.next();
                Node c = (Node) row.get("node");
                double score = ((Number) row.get("score")).doubleValue();
                if (!s.linked(c)) {
                    continue;
                }
                for (Node d : documents(c)) {
                    if (s.keep(d)) {
                        hits.add(Map.entry(c, score));
                    }
                }
            }
        }
        return ranked(hits);
    }

    /**
     * The vector list of retrieval/hybrid.cypher with about: the chunks that MENTION the entities, ranked
     * by their cosine with the question (ties by chunk id), those whose document passes the filters.
     */
    private List<Node> linkedHits(List<Double> embedding, Settings s) {
        float[] question = Vectors.of(embedding);
        Map<Node, Double> scored = new LinkedHashMap<>();
        for (String entityId : s.about) {
            try (ResourceIterator<Node> entities = tx.findNodes(ENTITY, "id", entityId)) {
                while (entities.hasNext()) {
                    for (Relationship m : entities.next().getRelationships(Direction.INCOMING, MENTIONS)) {
                        Node c = m.getStartNode();
                        if (c.hasLabel(CHUNK) && !scored.containsKey(c)) {
                            scored.put(c, Vectors.similarity(Vectors.of(c), question));
                        }
                    }
                }
            }
        }
        List<Map.Entry<Node, Double>> linked = new ArrayList<>();
        for (Map.Entry<Node, Double> e : scored.entrySet()) {
            if (e.getValue() != null) {
                linked.add(e);
            }
        }
        linked.sort(Comparator.comparing((Map.Entry<Node, Double> e) -> e.getValue(), RetrieveProcedures::descending)
                .thenComparing(e -> (String) e.getKey().getProperty("id", null), Comparator.nullsLast(PyText.ORDER)));
        List<Map.Entry<Node, Double>> hits = new ArrayList<>();
        for (Map.Entry<Node, Double> e : linked) {
            for (Node d : documents(e.getKey())) {
                if (s.keep(d)) {
                    hits.add(e);
                }
            }
        }
        return ranked(hits);
    }

    /** The hits' chunks, best first (a stable sort, as Cypher's ORDER BY). */
    private static List<Node> ranked(List<Map.Entry<Node, Double>> hits) {
        hits.sort(Comparator.comparing(Map.Entry::getValue, RetrieveProcedures::descending));
        List<Node> out = new ArrayList<>(hits.size());
        for (Map.Entry<Node, Double> e : hits) {
            out.add(e.getKey());
        }
        return out;
    }

    private static void fuse(List<Node> ranked, double weight, double rrfK, String label,
            Map<Node, double[]> scores, Map<Node, List<String>> vias) {
        for (int i = 0; i < ranked.size(); i++) {
            Node c = ranked.get(i);
            scores.computeIfAbsent(c, x -> new double[1])[0] += weight / (rrfK + i + 1);
            vias.computeIfAbsent(c, x -> new ArrayList<>()).add(label + (i + 1));
        }
    }

    /**
     * retrieval/entity_chunks.cypher: for each question entity, of its first `perEntity` chunks
     * about it (a MENTIONS rule in aboutRules, checked before the cut: passages naming it in passing
     * grow with the corpus) those whose document passes the filters, with the first seed's score.
     */
    private List<Ranked> aboutEntities(List<String> entityIds, long perEntity, double score, Settings s) {
        List<Ranked> found = new ArrayList<>();
        for (String entityId : new LinkedHashSet<>(entityIds)) {
            if (entityId == null) {
                continue;
            }
            try (ResourceIterator<Node> entities = tx.findNodes(ENTITY, "id", entityId)) {
                while (entities.hasNext()) {
                    Node e = entities.next();
                    Object name = e.getProperty("name", null);
                    String entity = String.valueOf(name != null ? name : e.getProperty("id", null));
                    long taken = 0;
                    for (Relationship m : e.getRelationships(Direction.INCOMING, MENTIONS)) {
                        Node n = m.getStartNode();
                        if (!n.hasLabel(CHUNK) || !(m.getProperty("rule", null) instanceof String rule)
                                || !s.aboutRules.contains(rule)) {
                            continue;
                        }
                        if (taken++ >= perEntity) {
                            break;
                        }
                        if (!s.linked(n)) {
                            continue;
                        }
                        for (Node doc : documents(n)) {
                            if (s.keep(doc)) {
                                found.add(ranked(n, doc, score, List.of("about question entity " + entity)));
                            }
                        }
                    }
                }
            }
        }
        return found;
    }

    // -- term coverage: graph.py's words() and coverage() ---------------------------------------

    /** The folded words of a text: runs of Python's \w (letters, numbers, "_") in graphrag.fold's text. */
    static Set<String> words(String text) {
        Set<String> out = new HashSet<>();
        if (text == null) {
            return out;
        }
        String folded = TextFunctions.foldText(text);
        int start = -1;
        for (int i = 0; i < folded.length(); ) {
            int cp = folded.codePointAt(i);
            if (isWord(cp)) {
                if (start < 0) {
                    start = i;
                }
            } else if (start >= 0) {
                out.add(folded.substring(start, i));
                start = -1;
            }
            i += Character.charCount(cp);
        }
        if (start >= 0) {
            out.add(folded.substring(start));
        }
        return out;
    }

    /** Python's \w on str: str.isalnum() (letters Lu Ll Lt Lm Lo, numbers Nd Nl No) or "_". */
    static boolean isWord(int cp) {
        if (cp == '_' || Character.isLetter(cp)) {
            return true;
        }
        int type = Character.getType(cp);
        return type == Character.DECIMAL_DIGIT_NUMBER || type == Character.LETTER_NUMBER
                || type == Character.OTHER_NUMBER;
    }

    /**
     * graph.py's term_weights: log((n + 1) / (df + 0.5)), df the candidates holding all of a term's
     * words, n the candidates.
     */
    static List<Double> termWeights(List<Set<String>> terms, Collection<Set<String>> candidates) {
        List<Double> out = new ArrayList<>(terms.size());
        int n = candidates.size();
        for (Set<String> term : terms) {
            int df = 0;
            for (Set<String> c : candidates) {
                if (c.containsAll(term)) {
                    df++;
                }
            }
            out.add(Math.log((n + 1) / (df + 0.5)));
        }
        return out;
    }

    /**
     * graph.py's coverage: the weighted share of the terms the seed lacks that the neighbour has (a
     * term counts when all its words are there), summed in the terms' order as Python sums them.
     */
    static double coverage(List<Set<String>> terms, List<Double> weights, Set<String> seedWords, Set<String> textWords) {
        double missing = 0.0;
        double held = 0.0;
        for (int i = 0; i < terms.size(); i++) {
            Set<String> term = terms.get(i);
            if (!seedWords.containsAll(term)) {
                missing += weights.get(i);
                if (textWords.containsAll(term)) {
                    held += weights.get(i);
                }
            }
        }
        return missing <= 0 ? 0.0 : held / missing;
    }

    // -- helpers ---------------------------------------------------------------------------------

    /** MATCH (c)-[:FROM_DOCUMENT]->(d:Document): one per relationship, as Cypher's rows. */
    static List<Node> documents(Node chunk) {
        List<Node> docs = new ArrayList<>(1);
        for (Relationship r : chunk.getRelationships(Direction.OUTGOING, FROM_DOCUMENT)) {
            if (r.getEndNode().hasLabel(DOCUMENT)) {
                docs.add(r.getEndNode());
            }
        }
        return docs;
    }

    private static Ranked ranked(Node chunk, Node doc, double score, List<String> via) {
        return ranked((String) chunk.getProperty("id", null), (String) doc.getProperty("id", null),
                (String) doc.getProperty("title", null), (String) doc.getProperty("uri", null),
                (String) chunk.getProperty("text", null), score, via);
    }

    private static Ranked ranked(String chunkId, String documentId, String title, String uri, String text,
            double score, List<String> via) {
        Ranked r = new Ranked();
        r.chunkId = chunkId;
        r.documentId = documentId;
        r.title = title;
        r.uri = uri;
        r.text = text;
        r.score = score;
        r.via = new ArrayList<>(via);
        return r;
    }

    /** Numbers in order as Cypher and Python compare them (0.0 equals -0.0). */
    static int ascending(Double a, Double b) {
        return a < b ? -1 : a > b ? 1 : 0;
    }

    static int descending(Double a, Double b) {
        return ascending(b, a);
    }

    static Number number(Map<String, Object> config, String key, Number fallback) {
        return config.get(key) instanceof Number n ? n : fallback;
    }

    static String text(Map<String, Object> config, String key, String fallback) {
        return config.get(key) instanceof String s ? s : fallback;
    }

    /** A config's about: one entity id, or a list of them; null when absent. */
    static Set<String> ids(Object value) {
        if (value instanceof String id) {
            return Set.of(id);
        }
        if (value instanceof List<?> list) {
            Set<String> out = new LinkedHashSet<>();
            for (Object o : list) {
                out.add(String.valueOf(o));
            }
            return out.isEmpty() ? null : out;  // an empty list: no filter
        }
        return null;
    }

    @SuppressWarnings("unchecked")
    static List<String> strings(Map<String, Object> config, String key, List<String> fallback) {
        return config.get(key) instanceof List<?> list ? (List<String>) list : fallback;
    }
}
