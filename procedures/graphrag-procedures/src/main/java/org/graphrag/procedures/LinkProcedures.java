package org.graphrag.procedures;

import java.text.Normalizer;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.neo4j.graphdb.Direction;
import org.neo4j.graphdb.Label;
import org.neo4j.graphdb.Node;
import org.neo4j.graphdb.Relationship;
import org.neo4j.graphdb.RelationshipType;
import org.neo4j.graphdb.ResourceIterator;
import org.neo4j.graphdb.Transaction;
import org.neo4j.procedure.Context;
import org.neo4j.procedure.Description;
import org.neo4j.procedure.Mode;
import org.neo4j.procedure.Name;
import org.neo4j.procedure.Procedure;
import org.neo4j.procedure.TerminationGuard;

/**
 * The place linker inside the database.
 *
 * <ul>
 *   <li>{@code graphrag.link.places(config)}: the whole run, as {@code graphrag link places}
 *       makes it: the names read from the {@code Place} nodes, one Aho–Corasick pass over the chunk
 *       texts ({@link PlaceMatcher}), the decisions of the Python engine ({@link PlaceLinker}) and
 *       the {@code MENTIONS} edges written: only the difference from the linker's edges in the
 *       graph, so a second call changes nothing. It writes in the caller's transaction (all or
 *       nothing); one row of counts comes back. {@code graphrag link places --engine procedure}
 *       calls it.</li>
 *   <li>{@code graphrag.link.places.match(config)}: the building block, the matching only: one
 *       row per accepted match, for a look from Neo4j Browser or for other decision code.</li>
 * </ul>
 */
public class LinkProcedures {

    static final Label CHUNK = Label.label("Chunk");
    static final Label PLACE = Label.label("Place");
    static final RelationshipType FROM_DOCUMENT = RelationshipType.withName("FROM_DOCUMENT");
    static final int DEFAULT_WINDOW = 480;

    @Context
    public Transaction tx;

    @Context
    public TerminationGuard guard;

    /** Ends the call when its transaction was terminated or ran past its timeout. */
    private void check() {
        if (guard != null) {
            guard.check();
        }
    }

    /** One accepted match: where (code point offsets in the stored text), as written, and around. */
    public static class PlaceMatch {
        public String chunkId;
        public String docId;
        public String key;
        public long start;
        public long end;
        public String surface;
        public String before;
        public String after;
    }

    static final Label ENTITY = Label.label("__Entity__");
    static final Label DOCUMENT = Label.label("Document");
    static final RelationshipType MENTIONS = RelationshipType.withName("MENTIONS");

    /** What one run of graphrag.link.places found, decided and wrote. */
    public static class LinkSummary {
        public String engine;
        public Long places;
        public Long names;
        public Long stoplisted;
        public Long tooShort;
        public Long chunksScanned;
        public Long chunksSkipped;
        public Long matches;
        public Long overlapped;
        public Map<String, Object> notAPlace;
        public Long linked;
        public Long undecided;
        public Map<String, Object> rules;
        public Long mentions;
        public Long created;
        public Long updated;
        public Long removed;
        public Long total;
        public Boolean dryRun;
        public Map<String, Object> seconds;
        public List<Map<String, Object>> edges; // with returnEdges: {chunkId, targetId, props}, else null
    }

    @Procedure(name = "graphrag.link.places", mode = Mode.WRITE)
    @Description("graphrag.link.places(config) - the place linker in the database, as `graphrag link places` "
            + "runs it: the names of the Place nodes, one Aho-Corasick pass over the chunk texts, the same "
            + "deciding rules (longest match, not-a-place contexts, kind cues, qualifiers, document context, "
            + "distances, exonyms, minConfidence) and the same MENTIONS edges (linker 'places'), writing only "
            + "the difference, so a second call changes nothing. One row of counts. config: corpus, sources "
            + "(gazetteers, e.g. ['pleiades']; default all), minLength (3), stoplist (folded names; default "
            + "the shipped list), requireCapital (true), skipTails (true), skipSections (a regex of section "
            + "titles; default the bibliography sections; '' skips none), minConfidence (0.5), contexts "
            + "(true), dryRun (false), returnEdges (false: the decided edges in `edges`). Example: CALL graphrag.link.places({corpus: 'isaw', minConfidence: 0.7}) "
            + "YIELD mentions, created, updated, removed, undecided RETURN *")
    public Stream<LinkSummary> link(@Name(value = "config", defaultValue = "{}") Map<String, Object> config) {
        long started = System.nanoTime();
        LinkConfig c = new LinkConfig(config == null ? Map.of() : config);
        List<PlaceLinker.Place> places = readPlaces(tx, c.sources);
        if (places.isEmpty()) {
            throw new IllegalArgumentException(
                    "no places to link: load a gazetteer first (`graphrag load pleiades FILE`)");
        }
        Map<String, Node> chunkNodes = new HashMap<>();
        List<PlaceLinker.Chunk> chunks = readChunks(tx, c.corpus, chunkNodes);
        Map<String, List<String>> emphasis = readEmphasis(tx, c.corpus);
        long read = System.nanoTime();
        PlaceLinker.WordLists lists = PlaceLinker.WordLists.shipped();
        PlaceLinker.Names names = PlaceLinker.Names.of(places, lists, c.options);
        long named = System.nanoTime();
        PlaceLinker linker = new PlaceLinker(names, lists, c.options);
        if (linker.targets.isEmpty()) {
            throw new IllegalArgumentException(
                    "no places to link: load a gazetteer first (`graphrag load pleiades FILE`)");
        }
        PlaceLinker.Result r = linker.run(chunks, emphasis, chunk -> {
            check();  // once a chunk: the transaction timeout ends a long run
            return chunkNodes.get(chunk.id()).getProperty("text", null) instanceof String s ? s : "";
        });
        long decided = System.nanoTime();
        LinkSummary out = new LinkSummary();
        out.engine = "procedure";
        out.places = r.places;
        out.names = r.names;
        out.stoplisted = r.stoplisted;
        out.tooShort = r.tooShort;
        out.chunksScanned = r.chunksScanned;
        out.chunksSkipped = r.chunksSkipped;
        out.matches = r.matches;
        out.overlapped = r.overlapped;
        out.notAPlace = new TreeMap<>(r.notAPlace);
        out.linked = r.linked;
        out.undecided = r.undecided;
        out.rules = new TreeMap<>(r.rules);
        out.mentions = (long) r.edges.size();
        out.dryRun = c.dryRun;
        long[] changes = write(tx, r.edges, chunkNodes, c.dryRun);
        out.created = changes[0];
        out.updated = changes[1];
        out.removed = changes[2];
        out.total = changes[3];
        long done = System.nanoTime();
        Map<String, Object> seconds = new LinkedHashMap<>();
        seconds.put("read", seconds(started, read));
        seconds.put("names", seconds(read, named));
        long matched = named + (long) (r.matchSeconds * 1e9);
        seconds.put("match", seconds(named, matched));
        seconds.put("decide", seconds(matched, decided));
        seconds.put("write", seconds(decided, done));
        seconds.put("total", seconds(started, done));
        out.seconds = seconds;
        if (c.returnEdges) {
            out.edges = new ArrayList<>();
            r.edges.forEach((edge, props) -> {
                Map<String, Object> values = new LinkedHashMap<>();
                props.toMap().forEach((k, v) -> values.put(k, v instanceof String[] list ? List.of(list) : v));
                out.edges.add(Map.of("chunkId", edge.chunk(), "targetId", edge.target(), "props", values));
            });
        }
        return Stream.of(out);
    }

    private static double seconds(long from, long to) {
        return Math.round((to - from) / 1e6) / 1e3;
    }

    /** places/names.cypher: every Place with an id (of these sources), what the linker reads of it. */
    static List<PlaceLinker.Place> readPlaces(Transaction tx, Set<String> sources) {
        List<PlaceLinker.Place> out = new ArrayList<>();
        try (ResourceIterator<Node> nodes = tx.findNodes(PLACE)) {
            while (nodes.hasNext()) {
                Map<String, Object> p = nodes.next().getProperties(
                        "id", "source", "names", "name", "title", "description", "placeTypes", "lat", "lon",
                        "typedBy");
                if (!(p.get("id") instanceof String id) || "ner".equals(p.get("typedBy"))) {
                    continue; // (the recogniser's own guesses are no gazetteer)
                }
                Object source = p.get("source");
                if (sources != null && !sources.contains(source)) {
                    continue;
                }
                Object namesValue = p.get("names");
                Object name = p.get("name");
                List<String> names = new ArrayList<>();
                int count;
                if (namesValue instanceof String[] list) {
                    names.addAll(Arrays.asList(list));
                    count = list.length;
                } else {
                    if (name instanceof String n) {
                        names.add(n);
                    }
                    count = 1; // coalesce(p.names, [p.name]): one item, even a null one
                }
                Object title = p.get("title");
                if (title == null) {
                    title = name;
                }
                Object description = p.get("description");
                List<String> types = new ArrayList<>();
                if (p.get("placeTypes") instanceof String[] list) {
                    types.addAll(Arrays.asList(list));
                }
                out.add(new PlaceLinker.Place(id, names, count, title == null ? null : title.toString(),
                        description == null ? null : PyText.head(description.toString(), 200),
                        source == null ? null : source.toString(), types, number(p.get("lat")),
                        number(p.get("lon"))));
            }
        }
        return out;
    }

    private static Double number(Object value) {
        return value instanceof Number n ? n.doubleValue() : null;
    }

    /** linkers/chunks.cypher: the chunks of documents (of the corpus), with their document, section and text. */
    static List<PlaceLinker.Chunk> readChunks(Transaction tx, String corpus, Map<String, Node> nodes) {
        List<PlaceLinker.Chunk> out = new ArrayList<>();
        try (ResourceIterator<Node> all = tx.findNodes(CHUNK)) {
            while (all.hasNext()) {
                Node chunk = all.next();
                Node doc = document(chunk);
                if (doc == null || !doc.hasLabel(DOCUMENT)
                        || corpus != null && !corpus.equals(doc.getProperty("corpus", null))) {
                    continue;
                }
                String id = String.valueOf(chunk.getProperty("id", ""));
                Object section = chunk.getProperty("section", null);
                nodes.put(id, chunk);
                out.add(new PlaceLinker.Chunk(id, String.valueOf(doc.getProperty("id", "")),
                        section == null ? "" : section.toString(), null)); // the text is read when matched
            }
        }
        return out;
    }

    /** linkers/document_emphasis.cypher: each document's italic spans. */
    static Map<String, List<String>> readEmphasis(Transaction tx, String corpus) {
        Map<String, List<String>> out = new HashMap<>();
        try (ResourceIterator<Node> docs = tx.findNodes(DOCUMENT)) {
            while (docs.hasNext()) {
                Node d = docs.next();
                if (corpus != null && !corpus.equals(d.getProperty("corpus", null))) {
                    continue;
                }
                if (d.getProperty("emphasis", null) instanceof String[] spans && spans.length > 0) {
                    out.put(String.valueOf(d.getProperty("id", "")), List.of(spans));
                }
            }
        }
        return out;
    }

    /**
     * mentions.sync_mentions and linkers/write_mentions.cypher: make the linker's edges of the
     * scanned chunks exactly `edges` (create the missing, update the changed, remove those not
     * made; an edge of another linker between the same nodes becomes this linker's). Returns
     * created, updated, removed and the linker's edges in the graph afterwards.
     */
    static long[] write(Transaction tx, Map<PlaceLinker.Edge, PlaceLinker.Props> edges, Map<String, Node> chunks,
            boolean dryRun) {
        Map<PlaceLinker.Edge, List<Relationship>> before = new HashMap<>();
        long total = 0;
        try (ResourceIterator<Relationship> all = tx.findRelationships(MENTIONS, "linker", PlaceLinker.LINKER)) {
            while (all.hasNext()) {
                Relationship m = all.next();
                Node c = m.getStartNode();
                Node e = m.getEndNode();
                if (!c.hasLabel(CHUNK) || !e.hasLabel(ENTITY)) {
                    continue;
                }
                total++;
                String chunkId = String.valueOf(c.getProperty("id", null));
                if (chunks.get(chunkId) != null) {
                    PlaceLinker.Edge key = new PlaceLinker.Edge(chunkId, String.valueOf(e.getProperty("id", null)));
                    before.computeIfAbsent(key, k -> new ArrayList<>()).add(m);
                }
            }
        }
        if (dryRun) {
            return new long[] {0, 0, 0, total};
        }
        long created = 0;
        long updated = 0;
        long removed = 0;
        ZonedDateTime at = ZonedDateTime.now(ZoneOffset.UTC);
        Map<String, List<Node>> entities = new HashMap<>();
        for (Map.Entry<PlaceLinker.Edge, PlaceLinker.Props> e : edges.entrySet()) {
            Map<String, Object> props = e.getValue().toMap();
            List<Relationship> old = before.get(e.getKey());
            if (old == null) {
                Node chunk = chunks.get(e.getKey().chunk());
                for (Node target : entities.computeIfAbsent(e.getKey().target(), id -> entitiesWithId(tx, id))) {
                    List<Relationship> other = new ArrayList<>();
                    for (Relationship r : chunk.getRelationships(Direction.OUTGOING, MENTIONS)) {
                        if (r.getEndNode().equals(target)) {
                            other.add(r);
                        }
                    }
                    if (other.isEmpty()) {
                        Relationship m = chunk.createRelationshipTo(target, MENTIONS);
                        props.forEach(m::setProperty);
                        m.setProperty("at", at);
                        created++;
                    } else {
                        other.forEach(r -> props.forEach(r::setProperty));
                    }
                }
                continue;
            }
            boolean changed = false;
            for (Relationship m : old) {
                for (Map.Entry<String, Object> p : props.entrySet()) {
                    changed |= !Objects.deepEquals(m.getProperty(p.getKey(), null), p.getValue());
                }
            }
            if (changed) {
                for (Relationship m : old) {
                    props.forEach(m::setProperty);
                    updated++;
                }
            }
        }
        for (Map.Entry<PlaceLinker.Edge, List<Relationship>> e : before.entrySet()) {
            if (!edges.containsKey(e.getKey())) {
                for (Relationship m : e.getValue()) {
                    m.delete();
                    removed++;
                }
            }
        }
        return new long[] {created, updated, removed, total + created - removed};
    }

    private static List<Node> entitiesWithId(Transaction tx, String id) {
        List<Node> out = new ArrayList<>();
        try (ResourceIterator<Node> found = tx.findNodes(ENTITY, "id", id)) {
            found.forEachRemaining(out::add);
        }
        return out;
    }

    static final class LinkConfig {
        final PlaceLinker.Options options = new PlaceLinker.Options();
        final String corpus;
        final Set<String> sources;
        final boolean dryRun;
        final boolean returnEdges;

        LinkConfig(Map<String, Object> map) {
            Set<String> known = Set.of("corpus", "sources", "minLength", "stoplist", "requireCapital", "skipTails",
                    "skipSections", "minConfidence", "contexts", "dryRun", "keys", "returnEdges");
            for (String key : map.keySet()) {
                if (!known.contains(key)) {
                    throw new IllegalArgumentException("graphrag.link.places: unknown config key '" + key
                            + "' (known: " + new TreeSet<>(known) + ")");
                }
            }
            corpus = text(map, "corpus");
            List<String> s = texts(map, "sources");
            sources = s == null ? null : new HashSet<>(s);
            dryRun = flag(map, "dryRun", false);
            returnEdges = flag(map, "returnEdges", false);
            Number minLength = number(map, "minLength", 3L);
            if (minLength.doubleValue() < 1 || minLength.doubleValue() > 1000) {
                throw wrong("minLength", "a whole number from 1 to 1000", minLength);
            }
            options.minLength = minLength.intValue();
            List<String> stop = texts(map, "stoplist");
            options.stoplist = stop == null ? null : PlaceLinker.folded(stop);
            options.requireCapital = flag(map, "requireCapital", true);
            options.skipTails = flag(map, "skipTails", true);
            String skip = map.containsKey("skipSections") ? text(map, "skipSections") : PlaceLinker.WordLists.skipSections();
            try {
                options.skipSections = skip == null || skip.isEmpty() ? null : Pattern.compile(skip, Pattern.UNICODE_CASE);
            } catch (java.util.regex.PatternSyntaxException e) {
                throw new IllegalArgumentException("graphrag.link.places: skipSections is not a regex: "
                        + e.getDescription());
            }
            options.minConfidence = number(map, "minConfidence", 0.5).doubleValue();
            if (!(options.minConfidence >= 0 && options.minConfidence <= 1)) {
                throw wrong("minConfidence", "a number from 0 to 1", options.minConfidence);
            }
            options.contexts = flag(map, "contexts", true);
            List<String> keys = texts(map, "keys");
            options.onlyKeys = keys == null ? null : new HashSet<>(keys);
        }

        private static IllegalArgumentException wrong(String key, String what, Object value) {
            return new IllegalArgumentException("graphrag.link.places: config " + key + " must be " + what
                    + ", not " + ProcedureConfig.shown(value));
        }

        private static String text(Map<String, Object> map, String key) {
            Object v = map.get(key);
            if (v != null && !(v instanceof String)) {
                throw wrong(key, "a string", v);
            }
            return (String) v;
        }

        private static boolean flag(Map<String, Object> map, String key, boolean otherwise) {
            Object v = map.get(key);
            if (v != null && !(v instanceof Boolean)) {
                throw wrong(key, "true or false", v);
            }
            return v == null ? otherwise : (Boolean) v;
        }

        private static Number number(Map<String, Object> map, String key, Number otherwise) {
            Object v = map.get(key);
            if (v != null && !(v instanceof Number)) {
                throw wrong(key, "a number", v);
            }
            return v == null ? otherwise : (Number) v;
        }

        private static List<String> texts(Map<String, Object> map, String key) {
            Object v = map.get(key);
            if (v == null) {
                return null;
            }
            if (!(v instanceof List<?> list) || list.stream().anyMatch(x -> !(x instanceof String))) {
                throw wrong(key, "a list of strings", v);
            }
            return list.stream().map(String.class::cast).toList();
        }
    }


    @Procedure(name = "graphrag.link.places.match", mode = Mode.READ)
    @Description("graphrag.link.places.match(config) - the gazetteer names in every chunk text, by one "
            + "Aho-Corasick pass in the database: one row per accepted match (chunkId, docId, key, start, end, "
            + "surface, before, after). config: keys (folded names; default: every Place's names, folded), "
            + "minLength (3), requireCapital (true), skipTails (true), skipSections (a regex of section titles "
            + "to skip), corpus, window (480, at most 10000); an unknown key or a value out of range is refused. "
            + "Example: CALL graphrag.link.places.match({corpus: 'isaw'}) "
            + "YIELD key, surface, chunkId RETURN key, count(*) AS n ORDER BY n DESC LIMIT 10")
    public Stream<PlaceMatch> match(@Name(value = "config", defaultValue = "{}") Map<String, Object> config) {
        Config c = new Config(config == null ? Map.of() : config);
        Collection<String> keys = c.keys != null ? c.keys : placeKeys(tx, c.minLength);
        PlaceMatcher matcher = new PlaceMatcher(keys, c.requireCapital, c.skipTails);
        return tx.findNodes(CHUNK).stream().flatMap(chunk -> {
            check();
            return matches(chunk, matcher, c).stream();
        });
    }

    private static List<PlaceMatch> matches(Node chunk, PlaceMatcher matcher, Config c) {
        List<PlaceMatch> rows = new ArrayList<>();
        Node doc = document(chunk);
        if (doc == null || c.corpus != null && !c.corpus.equals(doc.getProperty("corpus", null))) {
            return rows;
        }
        Object section = chunk.getProperty("section", null);
        if (c.skip != null && c.skip.matcher(section == null ? "" : section.toString()).matches()) {
            return rows;
        }
        Object text = chunk.getProperty("text", null);
        if (!(text instanceof String s) || s.isEmpty()) {
            return rows;
        }
        List<PlaceMatcher.Match> found = matcher.find(s);
        if (found.isEmpty()) {
            return rows;
        }
        int[] cps = s.codePoints().toArray();
        String chunkId = String.valueOf(chunk.getProperty("id", ""));
        String docId = String.valueOf(doc.getProperty("id", ""));
        for (PlaceMatcher.Match m : found) {
            PlaceMatch row = new PlaceMatch();
            row.chunkId = chunkId;
            row.docId = docId;
            row.key = m.key();
            row.start = m.start();
            row.end = m.end();
            row.surface = m.surface();
            int from = Math.max(0, m.start() - c.window);
            row.before = new String(cps, from, m.start() - from);
            row.after = new String(cps, m.end(), Math.min(cps.length, m.end() + c.window) - m.end());
            rows.add(row);
        }
        return rows;
    }

    static Node document(Node chunk) {
        for (Relationship r : chunk.getRelationships(Direction.OUTGOING, FROM_DOCUMENT)) {
            return r.getEndNode();
        }
        return null;
    }

    /** Every Place's names (or name), folded and trimmed, at least `minLength` long. */
    static Collection<String> placeKeys(Transaction tx, int minLength) {
        TreeSet<String> keys = new TreeSet<>();
        try (ResourceIterator<Node> places = tx.findNodes(PLACE)) {
            while (places.hasNext()) {
                Node p = places.next();
                Object names = p.getProperty("names", null);
                List<String> all = new ArrayList<>();
                if (names instanceof String[] list) {
                    all.addAll(List.of(list));
                } else if (p.getProperty("name", null) instanceof String name) {
                    all.add(name);
                }
                for (String name : all) {
                    String key = TextFunctions.foldText(Normalizer.normalize(name, Normalizer.Form.NFC)).strip();
                    if (key.codePointCount(0, key.length()) >= minLength) {
                        keys.add(key);
                    }
                }
            }
        }
        return keys;
    }

    static final class Config {
        final Collection<String> keys;
        final int minLength;
        final boolean requireCapital;
        final boolean skipTails;
        final Pattern skip;
        final String corpus;
        final int window;

        @SuppressWarnings("unchecked")
        Config(Map<String, Object> map) {
            ProcedureConfig.check("graphrag.link.places.match", map, ProcedureConfig.MATCH);
            Object k = map.get("keys");
            keys = k == null ? null : new ArrayList<>((List<String>) k);
            minLength = RetrieveProcedures.number(map, "minLength", 3L).intValue();
            requireCapital = !Boolean.FALSE.equals(map.get("requireCapital"));
            skipTails = !Boolean.FALSE.equals(map.get("skipTails"));
            Object skipSections = map.get("skipSections");
            try {
                skip = skipSections == null ? null : Pattern.compile(skipSections.toString());
            } catch (java.util.regex.PatternSyntaxException e) {
                throw new IllegalArgumentException("graphrag.link.places.match: config skipSections is not a regex: "
                        + ProcedureConfig.oneLine(e.getDescription()));
            }
            Object c = map.get("corpus");
            corpus = c == null ? null : c.toString();
            window = RetrieveProcedures.number(map, "window", (long) DEFAULT_WINDOW).intValue();
        }
    }
}
