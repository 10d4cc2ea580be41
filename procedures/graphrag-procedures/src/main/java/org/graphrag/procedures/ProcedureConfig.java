package org.graphrag.procedures;

import java.time.LocalDate;
import java.time.format.DateTimeParseException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * The config maps of {@code graphrag.search} and {@code graphrag.retrieve.graph} / {@code .neighbours},
 * checked before any work: every key known, every value of its kind and in its range. A bad value is
 * refused with one line naming the procedure and the key ({@code graphrag.search: config k must be a
 * whole number from 1 to 1000, not 'abc'}); a null value means the key is absent.
 *
 * <p>The bounds: k 1..1000; spare (graphrag.retrieve.graph) 0..1000; fetch 1..100000; graphCandidates 1..1000; linkSeeds, leadsPerSeed,
 * perSeed, perEntity 0..1000; linksPerSeed 0..100; leadPool, maxPhraseChunks 0..1000000; leadHits 0..100000; phraseChunksShare 0..1; the weights
 * (vectorWeight, fulltextWeight, linkWeight, coverWeight, phraseCap, aboutWeight) finite, 0..1000;
 * rrfK finite, 0..100000; from and to real dates written YYYY-MM-DD; corpus, mode and index names text
 * of at most 200 characters; entityIds, terms and aboutRules lists of at most 1000 texts; about a text of
 * at most 200 characters or a list of at most 1000 of them (entity ids; graphrag.search also takes names).
 *
 * <p>{@code graphrag.ppr} ({@link #PPR}): iterations 1..100000, damping and tolerance 0..1, maxDegree
 * 1..1000000, k 1..10000, labels a list of at most 1000 texts, relationshipTypes a map of at most 100
 * types to weights 0..1000; seeds a map of at most 10000 ids to finite weights of at least 0.
 * {@code graphrag.link.places.match} ({@link #MATCH}): keys a list of at most 1000000 texts, minLength
 * 1..1000, window 0..10000, requireCapital and skipTails true or false, skipSections a regex of at
 * most 1000 characters, corpus. The arguments: a required one given null is refused by name; an
 * embedding is a list of at most 4096 numbers; a full-text query at most 10000 characters; seed ids a
 * list of at most 1000 texts. A null config is the empty one (every default).
 */
final class ProcedureConfig {

    /** The longest question {@code graphrag.search} takes, in characters (code points), as the
     * Python faces ({@code graphrag_cypher.config.MAX_QUESTION}). */
    static final int MAX_QUESTION = 2000;

    /** The longest full-text (Lucene) query graphrag.retrieve.graph takes, in characters. */
    static final int MAX_QUERY = 10_000;
    /** The most numbers an embedding argument holds. */
    static final int MAX_DIMENSIONS = 4096;
    /** The most seeds graphrag.ppr takes. */
    static final int MAX_SEEDS = 10_000;
    /** The most iterations of graphrag.ppr's walk. */
    static final long MAX_PPR_ITERATIONS = 100_000;

    private static final Pattern ISO_DATE = Pattern.compile("\\d{4}-\\d{2}-\\d{2}");
    private static final int MAX_TEXT = 200;
    private static final int MAX_LIST = 1000;

    enum Kind { WHOLE, REAL, TEXT, DATE, TEXTS, TEXT_OR_TEXTS, FLAG, WEIGHTS }

    record Rule(Kind kind, double min, double max) {}

    private static Rule whole(long min, long max) {
        return new Rule(Kind.WHOLE, min, max);
    }

    private static Rule real(double min, double max) {
        return new Rule(Kind.REAL, min, max);
    }

    private static final Rule TEXT = new Rule(Kind.TEXT, 0, MAX_TEXT);
    private static final Rule DATE = new Rule(Kind.DATE, 0, 0);
    private static final Rule TEXTS = new Rule(Kind.TEXTS, 0, MAX_LIST);
    private static final Rule TEXT_OR_TEXTS = new Rule(Kind.TEXT_OR_TEXTS, 0, MAX_LIST);

    /** The keys the neighbour settings read (graphrag.retrieve.neighbours, and the graph mode's links). */
    static final Map<String, Rule> NEIGHBOURS = new LinkedHashMap<>();
    /** graphrag.retrieve.graph: the neighbour settings, the seeds' fusion and the placing. */
    static final Map<String, Rule> GRAPH = new LinkedHashMap<>();
    /** graphrag.search: the graph mode's keys and the mode. */
    static final Map<String, Rule> SEARCH = new LinkedHashMap<>();
    /** graphrag.ppr: the walk's settings. */
    static final Map<String, Rule> PPR = new LinkedHashMap<>();
    /** graphrag.link.places.match: the matching's settings. */
    static final Map<String, Rule> MATCH = new LinkedHashMap<>();

    static {
        NEIGHBOURS.put("maxPhraseChunks", whole(0, 1_000_000));
        NEIGHBOURS.put("phraseChunksShare", real(0, 1));
        NEIGHBOURS.put("phraseCap", real(0, 1000));
        NEIGHBOURS.put("aboutRules", TEXTS);
        NEIGHBOURS.put("aboutWeight", real(0, 1000));
        NEIGHBOURS.put("linkWeight", real(0, 1000));
        NEIGHBOURS.put("perSeed", whole(0, 1000));
        NEIGHBOURS.put("leadPool", whole(0, 1_000_000));
        NEIGHBOURS.put("leadHits", whole(0, 100_000));
        NEIGHBOURS.put("vectorIndex", TEXT);
        NEIGHBOURS.put("leadsPerSeed", whole(0, 1000));
        NEIGHBOURS.put("corpus", TEXT);
        NEIGHBOURS.put("corpora", TEXTS);
        NEIGHBOURS.put("from", DATE);
        NEIGHBOURS.put("to", DATE);
        NEIGHBOURS.put("about", TEXT_OR_TEXTS);
        GRAPH.putAll(NEIGHBOURS);
        GRAPH.put("k", whole(1, 1000));
        GRAPH.put("fetch", whole(1, 100_000));
        GRAPH.put("graphCandidates", whole(1, 1000));
        GRAPH.put("linkSeeds", whole(0, 1000));
        GRAPH.put("linksPerSeed", whole(0, 100));
        GRAPH.put("perEntity", whole(0, 1000));
        GRAPH.put("coverWeight", real(0, 1000));
        GRAPH.put("vectorWeight", real(0, 1000));
        GRAPH.put("fulltextWeight", real(0, 1000));
        GRAPH.put("rrfK", real(0, 100_000));
        GRAPH.put("entityIds", TEXTS);
        GRAPH.put("terms", TEXTS);
        GRAPH.put("fulltextIndex", TEXT);
        GRAPH.put("spare", whole(0, 1000));
        SEARCH.putAll(GRAPH);
        SEARCH.remove("spare");  // graphrag.search gives k rows
        SEARCH.put("mode", TEXT);
        PPR.put("relationshipTypes", new Rule(Kind.WEIGHTS, 0, 1000));
        PPR.put("damping", real(0, 1));
        PPR.put("iterations", whole(1, MAX_PPR_ITERATIONS));
        PPR.put("tolerance", real(0, 1));
        PPR.put("maxDegree", whole(1, 1_000_000));
        PPR.put("labels", TEXTS);
        PPR.put("k", whole(1, 10_000));
        MATCH.put("keys", new Rule(Kind.TEXTS, 0, 1_000_000));
        MATCH.put("minLength", whole(1, 1000));
        MATCH.put("requireCapital", new Rule(Kind.FLAG, 0, 0));
        MATCH.put("skipTails", new Rule(Kind.FLAG, 0, 0));
        MATCH.put("skipSections", new Rule(Kind.TEXT, 0, 1000));
        MATCH.put("corpus", TEXT);
        MATCH.put("window", whole(0, 10_000));
    }

    private ProcedureConfig() {}

    /** The rules of a procedure by its name (graphrag.retrieve.graph, ...); null for any other name. */
    static Map<String, Rule> rules(String procedure) {
        if (procedure == null) {
            return null;
        }
        return switch (procedure) {
            case "graphrag.retrieve.graph" -> GRAPH;
            case "graphrag.retrieve.neighbours" -> NEIGHBOURS;
            case "graphrag.search" -> SEARCH;
            case "graphrag.ppr" -> PPR;
            case "graphrag.link.places.match" -> MATCH;
            default -> null;
        };
    }

    /** Refuses (IllegalArgumentException, one line) a config with an unknown key or a bad value. */
    static void check(String procedure, Map<String, Object> config, Map<String, Rule> rules) {
        if (config == null) {
            return;
        }
        for (Map.Entry<String, Object> e : config.entrySet()) {
            Rule rule = rules.get(e.getKey());
            if (rule == null) {
                throw new IllegalArgumentException(procedure + ": unknown config key '" + oneLine(e.getKey())
                        + "': use " + String.join(", ", new TreeSet<>(rules.keySet())));
            }
            if (e.getValue() != null) {
                String problem = problem(rule, e.getValue());
                if (problem != null) {
                    throw new IllegalArgumentException(procedure + ": config " + e.getKey() + " must be " + problem
                            + ", not " + shown(e.getValue()));
                }
            }
        }
    }

    /** Refuses a required argument given null, naming it and what it should be. */
    static <T> T required(String procedure, String argument, T value, String what) {
        if (value == null) {
            throw new IllegalArgumentException(procedure + ": " + argument + " is required (" + what + "), not null");
        }
        return value;
    }

    /** Refuses an embedding that is not a list of at most {@link #MAX_DIMENSIONS} numbers. */
    static void checkEmbedding(String procedure, List<?> embedding) {
        required(procedure, "embedding", embedding, "a list of numbers");
        if (embedding.size() > MAX_DIMENSIONS) {
            throw new IllegalArgumentException(procedure + ": embedding must be a list of at most " + MAX_DIMENSIONS
                    + " numbers, not a list of " + embedding.size());
        }
        for (Object x : embedding) {
            if (!(x instanceof Number)) {
                throw new IllegalArgumentException(procedure + ": embedding must be a list of at most "
                        + MAX_DIMENSIONS + " numbers, not a list holding " + shown(x));
            }
        }
    }

    /** Refuses a full-text query longer than {@link #MAX_QUERY} characters. */
    static void checkQuery(String procedure, String query) {
        if (query != null && query.length() > MAX_QUERY) {
            throw new IllegalArgumentException(procedure + ": the query is " + query.length()
                    + " characters long; at most " + MAX_QUERY + " are taken");
        }
    }

    /** Refuses a list of ids that is null, longer than 1000 or holds anything but text. */
    static void checkIds(String procedure, String argument, List<?> ids) {
        required(procedure, argument, ids, "a list of ids");
        if (problem(TEXTS, ids) != null) {
            throw new IllegalArgumentException(procedure + ": " + argument + " must be " + problem(TEXTS, ids)
                    + ", not " + shown(ids));
        }
    }

    /** Refuses seeds that are null, more than {@link #MAX_SEEDS}, or weighted by anything but a finite number >= 0. */
    static void checkSeeds(String procedure, Map<String, Object> seeds) {
        required(procedure, "seeds", seeds, "a map of id to weight");
        if (seeds.size() > MAX_SEEDS) {
            throw new IllegalArgumentException(procedure + ": seeds must be a map of at most " + MAX_SEEDS
                    + " ids, not a map of " + seeds.size());
        }
        for (Map.Entry<String, Object> e : seeds.entrySet()) {
            if (!(e.getValue() instanceof Number n) || !Double.isFinite(n.doubleValue()) || n.doubleValue() < 0) {
                throw new IllegalArgumentException(procedure + ": the weight of seed '" + oneLine(e.getKey())
                        + "' must be a finite number of at least 0, not " + shown(e.getValue()));
            }
        }
    }

    /** Refuses a question longer than {@link #MAX_QUESTION} characters, leading and trailing blanks not counted. */
    static void checkQuestion(String procedure, String question) {
        String stripped = PyText.strip(question);
        int length = stripped.codePointCount(0, stripped.length());
        if (length > MAX_QUESTION) {
            throw new IllegalArgumentException(procedure + ": the question is " + length + " characters long; at most "
                    + MAX_QUESTION + " are taken: ask a shorter question");
        }
    }

    /** What the value should be, or null when it is. */
    static String problem(Rule rule, Object value) {
        switch (rule.kind()) {
            case WHOLE -> {
                String want = "a whole number from " + (long) rule.min() + " to " + (long) rule.max();
                if (!(value instanceof Number n)) {
                    return want;
                }
                double d = n.doubleValue();
                if (!(value instanceof Long || value instanceof Integer) && (!Double.isFinite(d) || d != Math.rint(d))) {
                    return want;
                }
                return d < rule.min() || d > rule.max() ? want : null;
            }
            case REAL -> {
                String want = "a finite number from " + plain(rule.min()) + " to " + plain(rule.max());
                if (!(value instanceof Number n)) {
                    return want;
                }
                double d = n.doubleValue();
                return !Double.isFinite(d) || d < rule.min() || d > rule.max() ? want : null;
            }
            case TEXT -> {
                return value instanceof String s && s.length() <= rule.max() ? null
                        : "text of at most " + (long) rule.max() + " characters";
            }
            case FLAG -> {
                return value instanceof Boolean ? null : "true or false";
            }
            case WEIGHTS -> {
                String want = "a map of at most 100 relationship types to finite numbers from 0 to "
                        + plain(rule.max());
                if (!(value instanceof Map<?, ?> map) || map.size() > 100) {
                    return want;
                }
                for (Map.Entry<?, ?> e : map.entrySet()) {
                    if (!(e.getKey() instanceof String k) || k.length() > MAX_TEXT
                            || !(e.getValue() instanceof Number n) || !Double.isFinite(n.doubleValue())
                            || n.doubleValue() < 0 || n.doubleValue() > rule.max()) {
                        return want;
                    }
                }
                return null;
            }
            case DATE -> {
                String want = "a date written YYYY-MM-DD, e.g. 2024-05-01";
                if (!(value instanceof String s) || !ISO_DATE.matcher(s).matches()) {
                    return want;
                }
                try {
                    LocalDate.parse(s);
                    return null;
                } catch (DateTimeParseException ex) {
                    return "a real calendar date written YYYY-MM-DD";
                }
            }
            case TEXTS -> {
                String want = "a list of at most " + (long) rule.max() + " texts";
                if (!(value instanceof List<?> list) || list.size() > rule.max()) {
                    return want;
                }
                for (Object o : list) {
                    if (!(o instanceof String)) {
                        return want;
                    }
                }
                return null;
            }
            case TEXT_OR_TEXTS -> {
                String want = "text of at most " + MAX_TEXT + " characters or a list of at most " + MAX_LIST
                        + " such texts";
                if (value instanceof String s) {
                    return s.length() <= MAX_TEXT ? null : want;
                }
                if (!(value instanceof List<?> list) || list.size() > MAX_LIST) {
                    return want;
                }
                for (Object o : list) {
                    if (!(o instanceof String s) || s.length() > MAX_TEXT) {
                        return want;
                    }
                }
                return null;
            }
            default -> throw new IllegalStateException(rule.kind().toString());
        }
    }

    private static String plain(double d) {
        return d == Math.rint(d) ? String.valueOf((long) d) : String.valueOf(d);
    }

    /** The refused value as the error shows it: quoted text, at most 40 characters, on one line. */
    static String shown(Object value) {
        String text = value instanceof List<?> list ? "a list of " + list.size()
                : value instanceof Map<?, ?> ? "a map"
                : value instanceof String s ? "'" + s + "'"
                : String.valueOf(value);
        text = oneLine(text);
        return text.length() > 40 ? text.substring(0, 40) + "…" : text;
    }

    static String oneLine(String text) {
        return String.join(" ", text.split("\\s+")).strip();
    }
}
