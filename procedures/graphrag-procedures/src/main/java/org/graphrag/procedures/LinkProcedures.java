package org.graphrag.procedures;

import java.text.Normalizer;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
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

/**
 * The place linker's matching inside the database: the gazetteer names in every chunk text, by
 * one Aho–Corasick pass ({@link PlaceMatcher}), without the texts leaving Neo4j. What the matches
 * mean (overlaps, not-a-place contexts, which place) is decided by the linker's one decision code
 * in Python, which writes the edges ({@code graphrag link places --engine procedure}).
 */
public class LinkProcedures {

    static final Label CHUNK = Label.label("Chunk");
    static final Label PLACE = Label.label("Place");
    static final RelationshipType FROM_DOCUMENT = RelationshipType.withName("FROM_DOCUMENT");
    static final int DEFAULT_WINDOW = 480;

    @Context
    public Transaction tx;

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

    @Procedure(name = "graphrag.link.places.match", mode = Mode.READ)
    @Description("graphrag.link.places.match(config) - the gazetteer names in every chunk text, by one "
            + "Aho-Corasick pass in the database: one row per accepted match (chunkId, docId, key, start, end, "
            + "surface, before, after). config: keys (folded names; default: every Place's names, folded), "
            + "minLength (3), requireCapital (true), skipTails (true), skipSections (a regex of section titles "
            + "to skip), corpus, window (480). Example: CALL graphrag.link.places.match({corpus: 'isaw'}) "
            + "YIELD key, surface, chunkId RETURN key, count(*) AS n ORDER BY n DESC LIMIT 10")
    public Stream<PlaceMatch> match(@Name(value = "config", defaultValue = "{}") Map<String, Object> config) {
        Config c = new Config(config);
        Collection<String> keys = c.keys != null ? c.keys : placeKeys(tx, c.minLength);
        PlaceMatcher matcher = new PlaceMatcher(keys, c.requireCapital, c.skipTails);
        return tx.findNodes(CHUNK).stream().flatMap(chunk -> matches(chunk, matcher, c).stream());
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
            Object k = map.get("keys");
            keys = k == null ? null : new ArrayList<>((List<String>) k);
            minLength = ((Number) map.getOrDefault("minLength", 3L)).intValue();
            requireCapital = (Boolean) map.getOrDefault("requireCapital", Boolean.TRUE);
            skipTails = (Boolean) map.getOrDefault("skipTails", Boolean.TRUE);
            Object skipSections = map.get("skipSections");
            skip = skipSections == null ? null : Pattern.compile(skipSections.toString());
            Object c = map.get("corpus");
            corpus = c == null ? null : c.toString();
            window = ((Number) map.getOrDefault("window", (long) DEFAULT_WINDOW)).intValue();
        }
    }
}
