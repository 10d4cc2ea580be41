package org.graphrag.procedures;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;

import org.neo4j.graphdb.Result;
import org.neo4j.graphdb.Transaction;
import org.neo4j.procedure.Context;
import org.neo4j.procedure.Description;
import org.neo4j.procedure.Mode;
import org.neo4j.procedure.Name;
import org.neo4j.procedure.Procedure;
import org.neo4j.procedure.TerminationGuard;

/**
 * {@code graphrag.search(question, config)}: a question in, the evidence {@code graphrag ask} would
 * retrieve out, with no Python: the question embedded by {@code graphrag.embed}'s model, its keywords
 * and the entities it names found as {@code retrieval/question/analyzer.py} finds them, then the retrieval mode
 * ({@code graph}: {@code graphrag.retrieve.graph}; {@code hybrid} and {@code vector}: the project's
 * own {@code retrieval/hybrid.cypher} and {@code vector.cypher}, packaged in this jar).
 */
public class SearchProcedure {

    static final List<String> MODES = List.of("graph", "hybrid", "vector");
    private static final Map<String, String> CYPHER = new ConcurrentHashMap<>();

    @Context
    public Transaction tx;

    @Context
    public TerminationGuard guard;

    public static class Hit {
        public long rank;
        public String chunkId;
        public String documentId;
        public String title;
        public String uri;
        public String text;
        public double score;
        public List<String> via;
    }

    public static class Analysis {
        public List<String> keywords;
        public String query;
        public List<String> entityIds;
        public List<Map<String, Object>> entities;
    }

    @Procedure(name = "graphrag.search", mode = Mode.READ)
    @Description("graphrag.search(question, config) - the chunks `graphrag ask` retrieves for a question, best "
            + "first, all inside Neo4j: the question embedded with graphrag.embed (all-MiniLM-L6-v2, ONNX), its "
            + "keywords (full-text query and coverage terms) and the entities it names found as the Python "
            + "analysis finds them, then the retrieval mode. config: mode ('graph', or 'hybrid', 'vector'), k (5), "
            + "corpus, from, to (ISO dates: a time in the question is not read as a filter here), about (only chunks "
            + "that mention this entity or place: its id, or a name or alias, as graphrag ask --about resolves it; or "
            + "a list of them, chunks that mention any), and any weight of "
            + "the graph mode (linkSeeds, coverWeight, ...; see graphrag.retrieve.graph); an unknown key or a value "
            + "out of range (k: 1 to 1000) is refused; a null config is the empty one. The question (required): "
            + "at most 2000 characters. Yields rank, chunkId, "
            + "documentId, title, uri, text, score, via. Example: CALL graphrag.search('who stole the lantern?', "
            + "{mode: 'graph', k: 5}) YIELD rank, title, score, text RETURN rank, title, score, left(text, 80)")
    public Stream<Hit> search(
            @Name("question") String question,
            @Name(value = "config", defaultValue = "{}") Map<String, Object> config) {
        config = config == null ? Map.of() : config;  // null: every default, as the config left out
        ProcedureConfig.check("graphrag.search", config, ProcedureConfig.SEARCH);
        ProcedureConfig.required("graphrag.search", "question", question, "text");
        if (question.isBlank()) {
            return Stream.empty();
        }
        ProcedureConfig.checkQuestion("graphrag.search", question);
        String mode = String.valueOf(config.get("mode") == null ? "graph" : config.get("mode"));
        if (!MODES.contains(mode)) {
            throw new IllegalArgumentException("graphrag.search: unknown mode '" + mode + "': choose one of "
                    + String.join(", ", MODES));
        }
        long k = RetrieveProcedures.number(config, "k", 5).longValue();
        if (k <= 0) {
            return Stream.empty();
        }
        List<String> about = config.get("about") == null ? null : about(config.get("about"), (String) config.get("corpus"));
        List<Double> embedding = EmbedFunctions.asList(EmbedFunctions.embedder().embed(question));
        boolean filtered = config.get("corpus") != null || config.get("from") != null || config.get("to") != null;
        List<Map<String, Object>> rows = new ArrayList<>();
        if (mode.equals("graph")) {
            Analysis a = analyse(question);
            long candidates = Math.max(k, RetrieveProcedures.number(config, "graphCandidates", 30).longValue());
            Map<String, Object> graphConfig = new HashMap<>(config);
            graphConfig.remove("mode");
            graphConfig.put("k", k);
            // GraphRetriever.rank: a seed past place k/2 (and a spare) cannot bring its neighbour into the top k
            graphConfig.put("linkSeeds",
                    Math.min(RetrieveProcedures.number(config, "linkSeeds", 10).longValue(), k / 2 + 2));
            graphConfig.put("about", about);
            graphConfig.putIfAbsent("fetch", fetchSize(candidates, filtered, about != null));
            graphConfig.putIfAbsent("entityIds", a.entityIds);
            graphConfig.putIfAbsent("terms", a.keywords);
            RetrieveProcedures graph = new RetrieveProcedures();
            graph.tx = tx;
            graph.guard = guard;
            graph.graph(embedding, a.query, graphConfig).forEach(r -> rows.add(row(r.chunkId, r.documentId, r.title,
                    r.uri, r.text, r.score, r.via)));
        } else {
            Map<String, Object> params = new HashMap<>();
            params.put("embedding", embedding);
            params.put("k", k);
            params.put("fetch",
                    RetrieveProcedures.number(config, "fetch", fetchSize(k, filtered, about != null)).longValue());
            params.put("corpus", config.get("corpus"));
            params.put("from", config.get("from"));
            params.put("to", config.get("to"));
            params.put("about", about);
            if (mode.equals("hybrid")) {
                params.put("query", analyse(question, false).query);
                params.put("vectorWeight", RetrieveProcedures.number(config, "vectorWeight", 1.0).doubleValue());
                params.put("fulltextWeight", RetrieveProcedures.number(config, "fulltextWeight", 0.5).doubleValue());
                params.put("rrfK", RetrieveProcedures.number(config, "rrfK", 60));
                params.put("maxCopies", null);  // copies are not read here
            }
            try (Result result = tx.execute(cypher(mode), unscoped(params))) {
                result.forEachRemaining(r -> rows.add(row((String) r.get("chunkId"), (String) r.get("documentId"),
                        (String) r.get("title"), (String) r.get("uri"), (String) r.get("text"),
                        ((Number) r.get("score")).doubleValue(), strings(r.get("via")))));
            }
        }
        List<Hit> hits = new ArrayList<>();
        for (Map<String, Object> r : rows) {
            Hit h = new Hit();
            h.rank = hits.size() + 1;
            h.chunkId = (String) r.get("chunkId");
            h.documentId = (String) r.get("documentId");
            h.title = (String) r.get("title");
            h.uri = (String) r.get("uri");
            h.text = (String) r.get("text");
            h.score = (double) r.get("score");
            @SuppressWarnings("unchecked")
            List<String> via = (List<String>) r.get("via");
            h.via = via;
            hits.add(h);
        }
        return hits.stream();
    }

    @Procedure(name = "graphrag.search.analysis", mode = Mode.READ)
    @Description("graphrag.search.analysis(question) - what graphrag.search reads from a question: its keywords "
            + "(as graphrag_cypher.retrieval.question.keywords), the full-text query made of them, and the entities it names "
            + "(whose name or alias occurs in it on word boundaries, accents and case folded; the longer of two "
            + "nested names). Example: CALL graphrag.search.analysis('Who stole the silver lantern from Edric?') "
            + "YIELD keywords, query, entities RETURN keywords, query, entities")
    public Stream<Analysis> analysis(@Name("question") String question) {
        if (question != null) {
            ProcedureConfig.checkQuestion("graphrag.search.analysis", question);
        }
        return Stream.of(analyse(question == null ? "" : question));
    }

    private static Map<String, Object> row(String chunkId, String documentId, String title, String uri, String text,
            double score, List<String> via) {
        Map<String, Object> r = new HashMap<>();
        r.put("chunkId", chunkId);
        r.put("documentId", documentId);
        r.put("title", title);
        r.put("uri", uri);
        r.put("text", text);
        r.put("score", score);
        r.put("via", via == null ? List.of() : via);
        return r;
    }

    private static List<String> strings(Object value) {
        List<String> out = new ArrayList<>();
        if (value instanceof List<?> list) {
            for (Object o : list) {
                out.add(String.valueOf(o));
            }
        }
        return out;
    }

    /** {@code fetch_size}: filters apply after the index lookup, so more hits when filtering, many more with about. */
    static long fetchSize(long k, boolean filtered, boolean about) {
        if (about) {
            return Math.max(ABOUT_FETCH, k * 100);
        }
        return Math.max(50, k * (filtered ? 20 : 10));
    }

    // -- about: retrieval/about.py's resolve_about -----------------------------------------------

    /** {@code about.ABOUT_FETCH}. */
    static final long ABOUT_FETCH = 1000;
    /** {@code about.NAME_SHORTLIST}: full-text hits read for a name. */
    private static final long NAME_SHORTLIST = 1000;

    /** The entity ids a config's about names: each text resolved as {@code resolve_about} does, in order. */
    List<String> about(Object value, String corpus) {
        List<String> values = new ArrayList<>();
        if (value instanceof String text) {
            values.add(text);
        } else if (value instanceof List<?> list) {
            for (Object o : list) {
                values.add((String) o);
            }
        }
        LinkedHashSet<String> ids = new LinkedHashSet<>();
        for (String text : values) {
            ids.addAll(resolveAbout(text, corpus));
        }
        return ids.isEmpty() ? null : new ArrayList<>(ids);  // an empty list: no filter
    }

    /**
     * An exact entity id, else the entity one of whose names is the text (name_key), the one the most
     * chunks in scope mention (then the first by id); with its INSTANCE_OF family.
     */
    List<String> resolveAbout(String value, String corpus) {
        String text = String.join(" ", splitSpace(value == null ? "" : value));
        if (text.isEmpty()) {
            throw new IllegalArgumentException("graphrag.search: config about is empty: give an entity id or name");
        }
        String chosen;
        List<Map<String, Object>> byId = weights(List.of(text), corpus);
        if (!byId.isEmpty()) {
            chosen = (String) byId.get(0).get("id");
        } else {
            List<Map<String, Object>> candidates = weights(named(text), corpus);
            if (candidates.isEmpty()) {
                throw new IllegalArgumentException("graphrag.search: about '" + text
                        + "': no entity or place has this id or name");
            }
            candidates.sort(Comparator.comparing((Map<String, Object> e) -> -((Number) e.get("chunks")).longValue())
                    .thenComparing(e -> (String) e.get("id"), PyText.ORDER));
            chosen = (String) candidates.get(0).get("id");
        }
        try (Result result = tx.execute(cypher("about_family"), unscoped(Map.of("id", chosen)))) {
            return result.hasNext() ? strings(result.next().get("ids")) : List.of(chosen);
        }
    }

    /** {@code about.name_key}: normName without a leading article. */
    static String aboutKey(String name) {
        return TextFunctions.normNameText(name).replaceFirst("^(?:the|a|an) ", "");
    }

    /** The ids of the entities one of whose names is the text, by id. */
    private List<String> named(String text) {
        String key = aboutKey(text);
        if (key.isEmpty()) {
            return List.of();
        }
        String words = QuestionWords.luceneQuery(splitSpace(text), " ");
        Map<String, Object> params = new HashMap<>();
        params.put("normNames", new ArrayList<>(new java.util.TreeSet<>(List.of(TextFunctions.normNameText(text), key))));
        params.put("query", words.isEmpty() ? "" : "\"" + words + "\"");
        params.put("limit", NAME_SHORTLIST);
        java.util.TreeSet<String> ids = new java.util.TreeSet<>(PyText.ORDER);
        try (Result result = tx.execute(cypher("about_names"), unscoped(params))) {
            while (result.hasNext()) {
                Map<String, Object> row = result.next();
                if (!(row.get("id") instanceof String id)) {
                    continue;
                }
                for (String name : strings(row.get("names"))) {
                    if (aboutKey(name).equals(key)) {
                        ids.add(id);
                        break;
                    }
                }
            }
        }
        return new ArrayList<>(ids);
    }

    /** retrieval/entity_weights.cypher's rows: id, name, type, chunks (the MENTIONS chunks in scope). */
    private List<Map<String, Object>> weights(List<String> ids, String corpus) {
        List<Map<String, Object>> rows = new ArrayList<>();
        if (ids.isEmpty()) {
            return rows;
        }
        Map<String, Object> params = new HashMap<>();
        params.put("ids", ids);
        params.put("corpus", corpus);
        try (Result result = tx.execute(cypher("entity_weights"), unscoped(params))) {
            result.forEachRemaining(r -> rows.add(new HashMap<>(r)));
        }
        return rows;
    }

    Analysis analyse(String question) {
        return analyse(question, true);
    }

    /** {@code QuestionAnalyzer.analyze} without the time expression: keywords, query, entities. */
    Analysis analyse(String question, boolean withEntities) {
        Analysis a = new Analysis();
        a.keywords = QuestionWords.keywords(question, 12);
        a.query = QuestionWords.luceneQuery(a.keywords.isEmpty() ? splitSpace(question) : a.keywords, " ");
        a.entities = withEntities ? entities(question, QuestionWords.keywords(question, 40)) : List.of();
        a.entityIds = a.entities.stream().map(e -> (String) e.get("id")).toList();
        return a;
    }

    /** {@code QuestionAnalyzer.entities}: known entities whose name or an alias occurs in the text. */
    List<Map<String, Object>> entities(String text, List<String> words) {
        String query = QuestionWords.luceneQuery(words, " OR ");
        if (query.isEmpty()) {
            return List.of();
        }
        String folded = TextFunctions.foldText(text);
        Map<String, Map<String, Object>> found = new LinkedHashMap<>();
        try (Result result = tx.execute(cypher("question_entities"), unscoped(Map.of("query", query, "limit", 100L)))) {
            while (result.hasNext()) {
                Map<String, Object> row = result.next();
                List<String> names = new ArrayList<>(new LinkedHashSet<>(strings(row.get("names"))));
                if (names.isEmpty()) {
                    names = row.get("name") == null ? List.of() : List.of(String.valueOf(row.get("name")));
                }
                String best = null;
                for (String name : names) {
                    String s = PyText.strip(name);
                    if (s.codePointCount(0, s.length()) >= 3 && occurs(folded, TextFunctions.foldText(s))
                            && (best == null || name.codePointCount(0, name.length()) > best.codePointCount(0, best.length()))) {
                        best = name;
                    }
                }
                String id = (String) row.get("id");
                if (best != null && !found.containsKey(id)) {
                    Map<String, Object> e = new LinkedHashMap<>();
                    e.put("id", id);
                    e.put("name", row.get("name"));
                    e.put("type", row.get("type"));
                    e.put("matched", PyText.strip(best));
                    e.put("documentId", row.get("documentId"));
                    List<String> labels = new ArrayList<>(strings(row.get("labels")));
                    labels.remove("__Entity__");
                    e.put("labels", labels);
                    found.put(id, e);
                }
            }
        }
        List<Map<String, Object>> kept = new ArrayList<>(found.values());
        Map<Object, String> keys = new HashMap<>();
        for (Map<String, Object> e : kept) {
            keys.put(e.get("id"), nameKey((String) e.get("matched")));
        }
        List<Map<String, Object>> out = new ArrayList<>();
        for (Map<String, Object> e : kept) {
            String key = keys.get(e.get("id"));
            boolean inside = false;
            for (Map<String, Object> o : kept) {
                String other = keys.get(o.get("id"));
                if (o != e && !key.equals(other) && other.contains(key)) {
                    inside = true;
                    break;
                }
            }
            if (!inside) {
                out.add(e);
            }
        }
        // in the order the question names them; one name's entities together, by id
        out.sort((x, y) -> {
            int c = Integer.compare(pythonFind(folded, TextFunctions.foldText((String) x.get("matched"))),
                    pythonFind(folded, TextFunctions.foldText((String) y.get("matched"))));
            return c != 0 ? c : PyText.ORDER.compare((String) x.get("id"), (String) y.get("id"));
        });
        return out;
    }

    /** {@code str.find} in code points. */
    private static int pythonFind(String text, String part) {
        int at = text.indexOf(part);
        return at < 0 ? -1 : text.codePointCount(0, at);
    }

    /** {@code re.search(r"(?<!\w)" + re.escape(name) + r"(?!\w)", text)}. */
    static boolean occurs(String text, String name) {
        if (name.isEmpty()) {
            return false;
        }
        for (int at = text.indexOf(name); at >= 0; at = text.indexOf(name, at + 1)) {
            int end = at + name.length();
            boolean before = at > 0 && RetrieveProcedures.isWord(text.codePointBefore(at));
            boolean after = end < text.length() && RetrieveProcedures.isWord(text.codePointAt(end));
            if (!before && !after) {
                return true;
            }
        }
        return false;
    }

    /** {@code name_key}: folded, whitespace collapsed, without a leading article. */
    static String nameKey(String name) {
        String folded = String.join(" ", splitSpace(TextFunctions.foldText(name)));
        return folded.replaceFirst("^(?:the|a|an)\\s+", "");
    }

    private static List<String> splitSpace(String text) {
        List<String> out = new ArrayList<>();
        StringBuilder word = new StringBuilder();
        text.codePoints().forEach(cp -> {
            if (cp >= 0x1c && cp <= 0x1f || cp == 0x85 || Character.isWhitespace(cp) || Character.isSpaceChar(cp)) {
                if (word.length() > 0) {
                    out.add(word.toString());
                    word.setLength(0);
                }
            } else {
                word.appendCodePoint(cp);
            }
        });
        if (word.length() > 0) {
            out.add(word.toString());
        }
        return out;
    }

    /**
     * The parameters of one of the project's retrieval queries with {@code $scope} null: the corpora of
     * the server key a question is asked for (graphrag serve passes them), where here, in the database,
     * whoever calls the procedure reads every corpus.
     */
    static Map<String, Object> unscoped(Map<String, Object> params) {
        Map<String, Object> out = new HashMap<>(params);
        out.putIfAbsent("scope", null);
        return out;
    }

    /** The project's Cypher file {@code cypher/queries/retrieval/<name>.cypher}, packaged in this jar. */
    static String cypher(String name) {
        return CYPHER.computeIfAbsent(name, n -> {
            try (InputStream in = SearchProcedure.class.getResourceAsStream("/cypher/retrieval/" + n + ".cypher")) {
                if (in == null) {
                    throw new IllegalStateException("graphrag.search: retrieval/" + n + ".cypher is not in the plugin jar");
                }
                return new String(in.readAllBytes(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
    }
}
