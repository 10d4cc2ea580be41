package org.graphrag.procedures;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Pattern;

import org.graphrag.procedures.PlaceContexts.Occurrence;
import org.graphrag.procedures.PlaceDecisions.Decision;
import org.graphrag.procedures.PlaceDecisions.Point;
import org.graphrag.procedures.PlaceDecisions.Profile;

/**
 * The place linker's whole run on data in hand (no database here): the name table from the
 * places, one Aho–Corasick pass over the chunk texts ({@link PlaceMatcher}), and the decisions of
 * Python's {@code linkers/places.py} ({@code place_mentions}, {@code resolve}): of overlapping
 * names the longest, not-a-place contexts dropped and counted, one decision per mention, none
 * below {@code minConfidence}. The result is the set of edges with exactly the properties the
 * Python engines write. {@link LinkProcedures#link} reads the graph into it and writes the edges.
 */
final class PlaceLinker {

    static final String LINKER = "places";
    static final String SOURCE = "aho-corasick-in-neo4j";
    static final int MAX_CANDIDATES = 10;
    /** places.NAME_ENDINGS: the Greek and Latin endings a qualified name's longer form may add. */
    static final List<String> NAME_ENDINGS = sortedWords(Lexicon.words("place_name_endings"));

    private static List<String> sortedWords(Set<String> words) {
        List<String> out = new ArrayList<>(words);
        out.sort(PyText.ORDER);
        return List.copyOf(out);
    }
    static final String RESOURCES = "/org/graphrag/procedures/linkers/";

    /** Lucene's English stop words (lexicon lucene_stop_words, as matcher.LUCENE_STOP_WORDS): never names. */
    static final Set<String> LUCENE_STOP_WORDS = Lexicon.words("lucene_stop_words");
    private static final String JOINERS = ".:'\u2018\u2019\u00b7\u0387\u2024";
    private static final Pattern SHORTLIST_SPLIT = Pattern.compile(
            "[^" + PyText.W_IN + ".:'\u2018\u2019\u00b7\u0387\u2024]+|_");

    record Place(String id, List<String> names, int nameCount, String title, String description, String source,
            List<String> types, Double lat, Double lon) {}

    /** A chunk to link; `text` null: read when its turn comes (see {@link #run}), not held for the whole run. */
    record Chunk(String id, String docId, String section, String text) {}

    record Edge(String chunk, String target) implements Comparable<Edge> {
        @Override
        public int compareTo(Edge o) {
            int c = PyText.ORDER.compare(chunk, o.chunk);
            return c != 0 ? c : PyText.ORDER.compare(target, o.target);
        }
    }

    /** An edge's properties, as mentions.py writes them (but `at`, set on creation). */
    static final class Props {
        TreeSet<String> matched = new TreeSet<>(PyText.ORDER);
        TreeSet<String> keys = new TreeSet<>(PyText.ORDER);
        long mentions;
        String rule;
        double confidence;
        List<String> candidates;

        Map<String, Object> toMap() {
            Map<String, Object> out = new LinkedHashMap<>();
            out.put("matched", matched.toArray(new String[0]));
            out.put("keys", keys.toArray(new String[0]));
            out.put("mentions", mentions);
            out.put("rule", rule);
            out.put("confidence", confidence);
            out.put("candidates", candidates.toArray(new String[0]));
            out.put("linker", LINKER);
            out.put("source", SOURCE);
            return out;
        }
    }

    /** The word lists of linkers/ (stoplist.txt, persons.txt, exonyms.txt), as copied into the jar. */
    static final class WordLists {
        final Set<String> stoplist;
        final Set<String> persons;
        final List<String[]> exonyms;

        WordLists(Set<String> stoplist, Set<String> persons, List<String[]> exonyms) {
            this.stoplist = stoplist;
            this.persons = persons;
            this.exonyms = exonyms;
        }

        static WordLists shipped() {
            List<String[]> exonyms = new ArrayList<>();
            for (String line : lines("exonyms.txt")) {
                line = PyText.strip(line.split("#", 2)[0]);
                int eq = line.indexOf('=');
                if (eq >= 0) {
                    String name = PyText.strip(line.substring(0, eq));
                    String pid = PyText.strip(line.substring(eq + 1));
                    if (!name.isEmpty() && !pid.isEmpty()) {
                        exonyms.add(new String[] {name, pid});
                    }
                }
            }
            return new WordLists(foldedLines("stoplist.txt"), foldedLines("persons.txt"), exonyms);
        }

        /** places.load_skip_sections: the regex of sections not scanned. */
        static String skipSections() {
            StringBuilder out = new StringBuilder();
            for (String line : lines("skip_sections.txt")) {
                if (!line.isEmpty() && !line.startsWith("#")) {
                    out.append(line);
                }
            }
            return out.toString();
        }

        /** matcher.load_stoplist: folded lines, "#" comments dropped. */
        static Set<String> foldedLines(String name) {
            Set<String> out = new HashSet<>();
            for (String line : lines(name)) {
                String word = PyText.strip(line.split("#", 2)[0]);
                if (!word.isEmpty()) {
                    out.add(TextFunctions.foldText(word));
                }
            }
            return out;
        }

        private static List<String> lines(String name) {
            try (InputStream in = PlaceLinker.class.getResourceAsStream(RESOURCES + name)) {
                if (in == null) {
                    throw new IllegalStateException("the plugin jar lacks linkers/" + name);
                }
                return new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().toList();
            } catch (IOException e) {
                throw new IllegalStateException("cannot read linkers/" + name + ": " + e.getMessage(), e);
            }
        }
    }

    static final class Options {
        int minLength = 3;
        Set<String> stoplist;
        boolean requireCapital = true;
        boolean skipTails = true;
        Pattern skipSections;
        double minConfidence = 0.5;
        boolean contexts = true;
        Set<String> onlyKeys;
    }

    /** What a run found and decided. */
    static final class Result {
        long names;
        long places;
        long stoplisted;
        long tooShort;
        long chunksScanned;
        long chunksSkipped;
        long matches;
        long overlapped;
        long linked;
        long undecided;
        Map<String, Long> notAPlace = new TreeMap<>();
        Map<String, Long> rules = new TreeMap<>();
        TreeMap<Edge, Props> edges = new TreeMap<>();
        double matchSeconds;
    }

    // --- the name table (matcher.build_name_table, name_cache.read_place_names) ---------------

    /**
     * The names looked for, what the decision knows of each place, and the automaton: built from
     * the places and the name rules, and kept for the next call while both are the same (as the
     * Python engines keep theirs in .graphrag/cache/). Shared by calls: read-only once built
     * (profiles are made on first use, in a concurrent map).
     */
    static final class Names {
        final Map<String, List<String>> targets = new TreeMap<>(PyText.ORDER);
        final Map<String, List<String>> exonyms = new HashMap<>();
        final Map<String, Place> placesById = new HashMap<>();
        final Map<String, Profile> profiles = new java.util.concurrent.ConcurrentHashMap<>();
        final PlaceMatcher matcher;
        final long places;
        long stoplisted;
        long tooShort;

        Names(List<Place> places, WordLists lists, Options options) {
            Set<String> stoplist = options.stoplist != null ? options.stoplist : lists.stoplist;
            List<Place> sorted = new ArrayList<>(places);
            sorted.sort(Comparator.comparing(Place::id, PyText.ORDER));
            Map<String, List<String>> names = new LinkedHashMap<>();
            for (Place p : sorted) {
                placesById.put(p.id(), p);
                for (String name : p.names()) {
                    if (name != null) {
                        names.computeIfAbsent(name, n -> new ArrayList<>()).add(p.id());
                    }
                }
            }
            for (String[] pair : lists.exonyms) {
                if (placesById.containsKey(pair[1])) {
                    List<String> ids = names.computeIfAbsent(pair[0], n -> new ArrayList<>());
                    if (!ids.contains(pair[1])) {
                        ids.add(pair[1]);
                    }
                    exonyms.computeIfAbsent(TextFunctions.foldText(pair[0]), n -> new ArrayList<>()).add(pair[1]);
                }
            }
            Map<String, LinkedHashSet<String>> merged = new TreeMap<>(PyText.ORDER);
            for (Map.Entry<String, List<String>> e : names.entrySet()) {
                String key = PyText.strip(TextFunctions.foldText(PyText.nfc(e.getKey())));
                if (!key.isEmpty()) {
                    merged.computeIfAbsent(key, k -> new LinkedHashSet<>()).addAll(e.getValue());
                }
            }
            for (Map.Entry<String, LinkedHashSet<String>> e : merged.entrySet()) {
                String key = e.getKey();
                if (PyText.length(key) < options.minLength) {
                    tooShort++;
                } else if (stoplist.contains(key) || LUCENE_STOP_WORDS.contains(key)) {
                    stoplisted++;
                } else if (!searchable(key)) {
                    continue; // no letters or digits a full-text index could shortlist on
                } else if (options.onlyKeys == null || options.onlyKeys.contains(key)) {
                    targets.put(key, List.copyOf(e.getValue()));
                }
            }
            this.places = sorted.size();
            this.matcher = new PlaceMatcher(targets.keySet(), options.requireCapital, options.skipTails);
        }

        /** The names for these places and rules: the last call's when they are the same, else built. */
        static Names of(List<Place> places, WordLists lists, Options options) {
            List<Object> key = Arrays.asList(places, options.stoplist, options.minLength, options.onlyKeys,
                    options.requireCapital, options.skipTails);
            Object[] last = cached;
            if (last != null && last[0].equals(key)) {
                return (Names) last[1];
            }
            Names built = new Names(places, lists, options);
            cached = new Object[] {key, built};
            return built;
        }

        private static volatile Object[] cached;

        Profile profile(String id) {
            Place p = placesById.get(id);
            if (p == null) {
                return null;
            }
            return profiles.computeIfAbsent(id, k -> PlaceDecisions.profile(
                    p.title(), p.description(), p.source(), p.types(), p.lat(), p.lon(), p.nameCount()));
        }
    }

    final Map<String, List<String>> targets;
    final Map<String, List<String>> exonyms;
    private final Names table;
    private final Set<String> persons;
    private final Options options;
    final Result result = new Result();

    PlaceLinker(Names names, WordLists lists, Options options) {
        this.table = names;
        this.targets = names.targets;
        this.exonyms = names.exonyms;
        this.options = options;
        this.persons = lists.persons;
        result.places = names.places;
        result.names = names.targets.size();
        result.stoplisted = names.stoplisted;
        result.tooShort = names.tooShort;
    }

    /** key.isascii() and key.isalnum(), or matcher.shortlist_tokens(key) is not empty. */
    static boolean searchable(String key) {
        if (PyText.isAscii(key) && !key.isEmpty() && key.chars().allMatch(c -> Character.isLetterOrDigit(c))) {
            return true;
        }
        int[] cps = key.codePoints().toArray();
        StringBuilder joined = new StringBuilder();
        for (int i = 0; i < cps.length; i++) {
            int ch = cps[i];
            boolean keep = JOINERS.indexOf(ch) < 0 || (0 < i && i < cps.length - 1 && PlaceMatcher.isLetter(cps[i - 1])
                    && PlaceMatcher.isLetter(cps[i + 1]));
            joined.appendCodePoint(keep ? ch : ' ');
        }
        for (String word : SHORTLIST_SPLIT.split(joined.toString(), -1)) {
            word = PyText.strip(word, JOINERS);
            if (word.isEmpty() || LUCENE_STOP_WORDS.contains(word)) {
                continue;
            }
            for (int i = 0; i < word.length(); i++) {
                char c = word.charAt(i);
                if (c < 128 && Character.isLetterOrDigit(c)) {
                    return true;
                }
            }
        }
        return false;
    }

    Profile profile(String id) {
        return table.profile(id);
    }

    // --- match ---------------------------------------------------------------------------------

    /** chunk id → the names found in it (places.match_fast), skip sections left out. */
    TreeMap<String, List<Occurrence>> match(List<Chunk> chunks, java.util.function.Function<Chunk, String> texts) {
        PlaceMatcher matcher = table.matcher;
        TreeMap<String, List<Occurrence>> found = new TreeMap<>(PyText.ORDER);
        for (Chunk chunk : chunks) {
            if (options.skipSections != null && options.skipSections.matcher(chunk.section()).matches()) {
                result.chunksSkipped++;
                continue;
            }
            result.chunksScanned++;
            String text = chunk.text() != null ? chunk.text() : texts.apply(chunk);
            if (text == null || text.isEmpty()) {
                continue;
            }
            List<PlaceMatcher.Match> hits = matcher.find(text);
            if (hits.isEmpty()) {
                continue;
            }
            int[] cps = text.codePoints().toArray();
            List<Occurrence> occurrences = new ArrayList<>();
            for (PlaceMatcher.Match m : hits) {
                int from = Math.max(0, m.start() - PlaceContexts.RAW_WINDOW);
                int to = Math.min(cps.length, m.end() + PlaceContexts.RAW_WINDOW);
                String[] around = PlaceContexts.window(
                        new String(cps, from, m.start() - from), new String(cps, m.end(), to - m.end()));
                occurrences.add(new Occurrence(chunk.id(), m.key(), m.start(), m.end(), m.surface(), around[0],
                        around[1]));
            }
            found.put(chunk.id(), occurrences);
            result.matches += occurrences.size();
        }
        return found;
    }

    // --- decide: places.place_mentions -----------------------------------------------------------

    private record Mention(String chunk, String key) implements Comparable<Mention> {
        @Override
        public int compareTo(Mention o) {
            int c = PyText.ORDER.compare(chunk, o.chunk);
            return c != 0 ? c : PyText.ORDER.compare(key, o.key);
        }
    }

    private record DocKey(String doc, String key) {}

    private boolean isPlace(String word, Map<String, Boolean> seen) {
        return seen.computeIfAbsent(word, w -> {
            for (String t : targets.getOrDefault(w, List.of())) {
                Profile p = profile(t);
                if ((p == null ? PlaceDecisions.NO_PROFILE : p).quality() >= 1.0) {
                    return true;
                }
            }
            return false;
        });
    }

    TreeMap<Mention, List<Occurrence>> placeMentions(TreeMap<String, List<Occurrence>> found,
            Map<String, String> chunkDoc, Map<String, List<String>> emphasis) {
        Map<String, String> joined = new HashMap<>();
        if (emphasis != null) {
            emphasis.forEach((doc, spans) -> joined.put(doc, String.join("\u0000", spans)));
        }
        Map<String, Boolean> placeWords = new HashMap<>();
        TreeMap<Mention, List<Occurrence>> mentions = new TreeMap<>();
        Map<String, List<Occurrence>> keptByChunk = new LinkedHashMap<>();
        for (Map.Entry<String, List<Occurrence>> e : found.entrySet()) {
            List<Occurrence> kept = PlaceContexts.longestMatches(e.getValue());
            keptByChunk.put(e.getKey(), kept);
            result.overlapped += e.getValue().size() - kept.size();
        }
        // A name the document italicises on its own, and somewhere calls a game or a book, is a
        // title in that whole document.
        Set<DocKey> titles = new HashSet<>();
        if (emphasis != null) {
            Map<String, Set<String>> bare = new HashMap<>();
            emphasis.forEach((doc, spans) -> {
                Set<String> folded = new HashSet<>();
                spans.forEach(s -> folded.add(TextFunctions.foldText(s)));
                bare.put(doc, folded);
            });
            keptByChunk.forEach((chunk, kept) -> {
                String doc = chunkDoc.get(chunk);
                for (Occurrence occ : kept) {
                    if (bare.getOrDefault(doc, Set.of()).contains(occ.key()) && PlaceContexts.titleCue(occ)) {
                        titles.add(new DocKey(doc, occ.key()));
                    }
                }
            });
        }
        keptByChunk.forEach((chunk, kept) -> {
            String doc = chunkDoc.get(chunk);
            for (Occurrence occ : kept) {
                if (titles.contains(new DocKey(doc, occ.key()))) {
                    result.notAPlace.merge("title", 1L, Long::sum);
                    continue;
                }
                if (emphasis != null) {
                    List<String> within = new ArrayList<>();
                    if (joined.getOrDefault(doc, "").contains(occ.surface())) {
                        for (String span : emphasis.getOrDefault(doc, List.of())) {
                            if (span.contains(occ.surface())) {
                                within.add(span);
                            }
                        }
                    }
                    String why = PlaceContexts.notAPlace(occ, w -> isPlace(w, placeWords), persons, within);
                    if (why != null) {
                        result.notAPlace.merge(why, 1L, Long::sum);
                        continue;
                    }
                }
                mentions.computeIfAbsent(new Mention(chunk, occ.key()), m -> new ArrayList<>()).add(occ);
            }
        });
        return mentions;
    }

    // --- decide: places.resolve ---------------------------------------------------------------------

    private record Evidence(List<String> cues, List<String> qualifiers) {}

    private static int compareLists(List<String> a, List<String> b) {
        for (int i = 0; i < Math.min(a.size(), b.size()); i++) {
            int c = PyText.ORDER.compare(a.get(i), b.get(i));
            if (c != 0) {
                return c;
            }
        }
        return Integer.compare(a.size(), b.size());
    }

    /** Another name of the gazetteer, not only a country of today: it can qualify a mention ("Antioch in Pisidia"). */
    private boolean qualifies(String name, String key) {
        List<String> named = targets.get(name);
        if (named == null || name.equals(key)) {
            return false;
        }
        for (String target : named) {
            Profile prof = profile(target);
            if (prof == null || !prof.modern()) {
                return true;
            }
        }
        return false;
    }

    /** places.qualified_forms: records of a longer form of the name ("Antiochia" for "Antioch in Pisidia")
     * that say the qualifier, where none of the name's own records does. */
    private List<String> qualifiedForms(String key, List<String> qualifiers) {
        List<String> own = targets.get(key);
        for (String t : own) {
            Profile prof = profile(t);
            String about = prof == null ? "" : prof.about();
            for (String q : qualifiers) {
                if (about.contains(q)) {
                    return List.of();
                }
            }
        }
        List<String> found = new ArrayList<>();
        for (String ending : NAME_ENDINGS) {
            for (String target : targets.getOrDefault(key + ending, List.of())) {
                Profile prof = profile(target);
                String about = prof == null ? "" : prof.about();
                boolean says = false;
                for (String q : qualifiers) {
                    says |= about.contains(q);
                }
                if (says && !own.contains(target) && !found.contains(target)) {
                    found.add(target);
                }
            }
        }
        return found;
    }

    private static Double medianDistance(Point point, List<Point> points) {
        if (points == null || points.isEmpty()) {
            return null;
        }
        double[] d = new double[points.size()];
        for (int i = 0; i < d.length; i++) {
            d[i] = PlaceDecisions.distanceKm(point, points.get(i));
        }
        java.util.Arrays.sort(d);
        return d[d.length / 2];
    }

    TreeMap<Edge, Props> resolve(TreeMap<Mention, List<Occurrence>> mentions, Map<String, String> chunkDoc) {
        double minConfidence = options.minConfidence;
        // document_context over the unambiguous mentions
        Map<String, Set<String>> known = new HashMap<>();
        Map<List<String>, List<Point>> byChunk = new HashMap<>();
        Map<String, TreeSet<Point>> docPointSets = new HashMap<>();
        for (Mention m : mentions.keySet()) {
            List<String> candidates = targets.get(m.key());
            if (candidates.size() != 1) {
                continue;
            }
            String doc = chunkDoc.get(m.chunk());
            String target = candidates.get(0);
            known.computeIfAbsent(doc, d -> new HashSet<>()).add(target);
            Profile prof = profile(target);
            if (prof != null && prof.point() != null && prof.quality() >= 0.6
                    && (prof.kind() == null || !PlaceDecisions.AREA_KINDS.contains(prof.kind()))) {
                byChunk.computeIfAbsent(List.of(doc, m.chunk()), k -> new ArrayList<>()).add(prof.point());
                docPointSets.computeIfAbsent(doc, d -> new TreeSet<>()).add(prof.point());
            }
        }
        byChunk.replaceAll((k, points) -> PlaceDecisions.distinct(points));
        Map<String, List<Point>> docPoints = new HashMap<>();
        docPointSets.forEach((doc, points) -> docPoints.put(doc, new ArrayList<>(points)));
        Map<List<String>, Double> distances = new HashMap<>();
        Map<List<String>, Double> docDistances = new HashMap<>();

        TreeMap<Edge, Props> edges = new TreeMap<>();
        Map<DocKey, Map<String, Long>> cued = new HashMap<>();
        Map<Mention, LinkedHashMap<Evidence, List<Occurrence>>> groups = new TreeMap<>();

        for (Map.Entry<Mention, List<Occurrence>> e : mentions.entrySet()) {
            Mention m = e.getKey();
            List<String> candidates = targets.get(m.key());
            LinkedHashMap<Evidence, List<Occurrence>> byEvidence = new LinkedHashMap<>();
            for (Occurrence occ : e.getValue()) {
                List<String> cues = candidates.size() > 1 ? List.copyOf(PlaceContexts.kindCues(occ)) : List.of();
                String found = PlaceContexts.qualifier(occ);
                List<String> qualifiers = List.of();
                if (found != null && !found.isEmpty()) {
                    String folded = TextFunctions.foldText(found);
                    if (qualifies(folded, m.key())) {
                        qualifiers = List.of(folded);
                    }
                }
                byEvidence.computeIfAbsent(new Evidence(cues, qualifiers), k -> new ArrayList<>()).add(occ);
            }
            groups.put(m, byEvidence);
            for (Evidence ev : byEvidence.keySet()) {
                Set<String> strong = new HashSet<>(ev.cues());
                strong.remove("modern");
                strong.remove("ancient");
                if (!strong.isEmpty() || !ev.qualifiers().isEmpty()) {
                    Decision first = decision(m, ev, null, chunkDoc, known, byChunk, docPoints, distances, docDistances);
                    if (first.confidence() >= minConfidence
                            && (first.rule().equals("kind-cue") || first.rule().equals("qualifier"))) {
                        cued.computeIfAbsent(new DocKey(chunkDoc.get(m.chunk()), m.key()), k -> new HashMap<>())
                                .merge(first.target(), 1L, Long::sum);
                    }
                }
            }
        }
        // One sense per document: a name the words around decide somewhere means the same where they say nothing.
        Map<DocKey, String> senses = new HashMap<>();
        cued.forEach((place, votes) -> {
            String best = null;
            long top = -1;
            for (String t : new TreeSet<>(votes.keySet())) {
                if (votes.get(t) > top) {
                    best = t;
                    top = votes.get(t);
                }
            }
            senses.put(place, best);
        });
        for (Map.Entry<Mention, LinkedHashMap<Evidence, List<Occurrence>>> g : groups.entrySet()) {
            Mention m = g.getKey();
            List<String> candidates = targets.get(m.key());
            List<Map.Entry<Evidence, List<Occurrence>>> ordered = new ArrayList<>(g.getValue().entrySet());
            ordered.sort((a, b) -> {
                int c = compareLists(a.getKey().cues(), b.getKey().cues());
                return c != 0 ? c : compareLists(a.getKey().qualifiers(), b.getKey().qualifiers());
            });
            for (Map.Entry<Evidence, List<Occurrence>> group : ordered) {
                Evidence ev = group.getKey();
                List<Occurrence> occurrences = group.getValue();
                String sense = ev.cues().isEmpty() && ev.qualifiers().isEmpty() && candidates.size() > 1
                        ? senses.get(new DocKey(chunkDoc.get(m.chunk()), m.key()))
                        : null;
                Decision decision = decision(m, ev, sense, chunkDoc, known, byChunk, docPoints, distances,
                        docDistances);
                if (decision.confidence() < minConfidence) {
                    result.undecided += occurrences.size();
                    continue;
                }
                result.linked += occurrences.size();
                result.rules.merge(decision.rule(), (long) occurrences.size(), Long::sum);
                TreeSet<String> surfaces = new TreeSet<>(PyText.ORDER);
                occurrences.forEach(o -> surfaces.add(o.surface()));
                Edge edge = new Edge(m.chunk(), decision.target());
                Props props = edges.get(edge);
                List<String> top = decision.candidates().subList(0, Math.min(MAX_CANDIDATES,
                        decision.candidates().size()));
                if (props == null) {
                    props = new Props();
                    props.matched.addAll(surfaces);
                    props.keys.add(m.key());
                    props.mentions = occurrences.size();
                    props.rule = decision.rule();
                    props.confidence = decision.confidence();
                    props.candidates = List.copyOf(top);
                    edges.put(edge, props);
                    continue;
                }
                props.matched.addAll(surfaces);
                props.keys.add(m.key());
                props.mentions += occurrences.size();
                String first = props.keys.first();
                if (decision.confidence() > props.confidence
                        || decision.confidence() == props.confidence && PyText.ORDER.compare(m.key(), first) > 0) {
                    props.rule = decision.rule();
                    props.confidence = decision.confidence();
                    props.candidates = List.copyOf(top);
                }
            }
        }
        return edges;
    }

    private Decision decision(Mention m, Evidence ev, String sense, Map<String, String> chunkDoc,
            Map<String, Set<String>> known, Map<List<String>, List<Point>> byChunk, Map<String, List<Point>> docPoints,
            Map<List<String>, Double> distances, Map<List<String>, Double> docDistances) {
        String doc = chunkDoc.get(m.chunk());
        List<String> candidates = targets.get(m.key());
        if (!ev.qualifiers().isEmpty()) {
            List<String> longer = qualifiedForms(m.key(), ev.qualifiers());
            if (!longer.isEmpty()) {
                candidates = new ArrayList<>(candidates);
                candidates.addAll(longer);
            }
        }
        return PlaceDecisions.decide(
                m.key(),
                candidates,
                this::profile,
                new HashSet<>(ev.cues()),
                new HashSet<>(exonyms.getOrDefault(m.key(), List.of())),
                known.getOrDefault(doc, Set.of()),
                target -> {
                    List<String> at = List.of(m.chunk(), target);
                    if (distances.containsKey(at)) {
                        return distances.get(at);
                    }
                    Profile prof = profile(target);
                    Double value = null;
                    if (prof != null && prof.point() != null) {
                        List<String> dk = List.of(doc, target);
                        Double whole;
                        if (docDistances.containsKey(dk)) {
                            whole = docDistances.get(dk);
                        } else {
                            whole = medianDistance(prof.point(), docPoints.get(doc));
                            docDistances.put(dk, whole);
                        }
                        Double near = medianDistance(prof.point(), byChunk.get(List.of(doc, m.chunk())));
                        if (whole == null) {
                            value = near;
                        } else if (near == null) {
                            value = whole;
                        } else {
                            value = (whole + near) / 2;
                        }
                    }
                    distances.put(at, value);
                    return value;
                },
                new HashSet<>(ev.qualifiers()),
                sense);
    }

    /** match → place mentions → decisions: the edges, and the counts in {@link #result}. */
    Result run(List<Chunk> chunks, Map<String, List<String>> emphasis) {
        return run(chunks, emphasis, Chunk::text);
    }

    /** The same, with the chunks' texts from `texts` (the database) where a Chunk holds none. */
    Result run(List<Chunk> chunks, Map<String, List<String>> emphasis,
            java.util.function.Function<Chunk, String> texts) {
        Map<String, String> chunkDoc = new HashMap<>();
        chunks.forEach(c -> chunkDoc.put(c.id(), c.docId()));
        long started = System.nanoTime();
        TreeMap<String, List<Occurrence>> found = match(chunks, texts);
        result.matchSeconds = (System.nanoTime() - started) / 1e9;
        TreeMap<Mention, List<Occurrence>> mentions = placeMentions(found, chunkDoc,
                options.contexts ? emphasis : null);
        result.edges = resolve(mentions, chunkDoc);
        return result;
    }

    static Set<String> folded(Collection<?> words) {
        Set<String> out = new HashSet<>();
        for (Object w : words) {
            out.add(TextFunctions.foldText(String.valueOf(w)));
        }
        return out;
    }
}
