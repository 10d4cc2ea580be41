package org.graphrag.procedures;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Predicate;
import java.util.regex.Pattern;

/**
 * What the words around a matched name say: the rules of Python's
 * {@code graphrag_cypher.linkers.contexts}, ported one for one (overlaps, not-a-place contexts,
 * title cues, kind cues, qualifiers). The Python module is the reference; the parity tests
 * ({@code tests/e2e/test_link_places.py}, {@code bench/procedures.py}) compare the two engines'
 * link sets on fixtures and on the real data.
 */
final class PlaceContexts {

    private PlaceContexts() {}

    static final int WINDOW = 120;
    static final int NEAR = 50;
    static final int RAW_WINDOW = 4 * WINDOW;

    /** One accepted match of a name in a chunk (start/end: code points of the stored text). */
    record Occurrence(String chunk, String key, int start, int end, String surface, String before, String after) {}

    /** The context windows of a match from raw slices ending / starting at the match (contexts.window). */
    static String[] window(String before, String after) {
        String b = PyText.isAscii(PyText.tail(before, RAW_WINDOW))
                ? PyText.tail(before, WINDOW)
                : PyText.tail(PyText.nfc(before), WINDOW);
        String a = PyText.isAscii(PyText.head(after, RAW_WINDOW))
                ? PyText.head(after, WINDOW)
                : PyText.head(PyText.nfc(after), WINDOW);
        return new String[] {b, a};
    }

    /** Of overlapping occurrences (one chunk), the longest names, then the earlier; in text order. */
    static List<Occurrence> longestMatches(List<Occurrence> found) {
        List<Occurrence> order = new ArrayList<>(found);
        order.sort(Comparator.comparingInt((Occurrence o) -> -PyText.length(o.key()))
                .thenComparingInt(Occurrence::start)
                .thenComparing(Occurrence::key, PyText.ORDER));
        List<Occurrence> kept = new ArrayList<>();
        for (Occurrence occ : order) {
            boolean overlaps = false;
            for (Occurrence k : kept) {
                if (occ.start() < k.end() && k.start() < occ.end()) {
                    overlaps = true;
                    break;
                }
            }
            if (!overlaps) {
                kept.add(occ);
            }
        }
        kept.sort(Comparator.comparingInt(Occurrence::start).thenComparing(Occurrence::key, PyText.ORDER));
        return kept;
    }

    // --- not-a-place contexts ------------------------------------------------------------

    /** Words before "of <Place>" that keep it a place (lexicon place_of_words). */
    static final Set<String> PLACE_OF_WORDS = Lexicon.words("place_of_words");

    /** Common nouns a monument's name starts with (lexicon place_generic). */
    static final Set<String> GENERIC = Lexicon.words("place_generic");

    private static final Pattern COGNOMEN = PyText.re("\\b[A-Z][a-z]+\\s+[IVX]+\\s+$", false);
    private static final Pattern PERSON_OF = PyText.re("(?:^|[^\\w'’])([A-Z][\\w'’-]*) of\\s+$", false);
    private static final Pattern SIGLUM = PyText.re(
            "(?:^|[\\s(\\[;,/])(?:P|O|T|I|SB|BGU|PSI|CPR|SPP|Pap|Chr|Stud|Ch\\.L\\.A|C|Inscr|Tab)\\.\\s*"
                    + "(?:[A-Z][\\w]*\\.\\s*)*$", false);
    private static final Pattern INSTITUTION_BEFORE = PyText.re(
            "\\b(?:School|Institute|Institut|Istituto|Academy|Akademie|University|Université|Università|Universität"
                    + "|Universidad|Museum|Musée|Museo|Library|Bibliothèque|Society|College|Press|Foundation|Department|Center"
                    + "|Centre|Seminar|Archive|Archives)s?\\b(?: (?:of|for) [A-Z][\\w]*(?: (?:and )?[A-Z][\\w]*)*)?\\s*(?:at|of|in|zu|de|di)\\s+$",
            false);
    private static final Pattern INSTITUTION_AFTER = PyText.re(
            "^(?:['’]s)?\\s+(?:University|Museum|Press|Institute|Academy|Library|Society|College|[Pp]rojects?)\\b", false);
    private static final Pattern SHELFMARK = PyText.re("^,\\s*(?!(?:AD|BC|BCE|CE)\\b)[A-Z]{1,3}\\.?\\s?[0-9]", false);
    private static final Pattern PLACE_CUE = PyText.re(
            "(?:\\b(?:at|in|from|to|near|towards|toward|via|city of|port of|town of|harbou?r of|site of|island of"
                    + "|called|named)|\\b(?:City|Port|Town|Harbou?r) of)\\s+$", true);
    private static final Pattern QUEEN = PyText.re(
            "\\b(?:[Qq]ueen|[Kk]ing|[Pp]rincess|[Pp]rince|[Ee]mperor|[Ee]mpress|[Ss]aint|St\\.|[Ss]t)\\s+$", false);
    private static final Pattern SPACES = PyText.re("\\s+", false);
    private static final Set<String> LINK_WORDS = Lexicon.words("place_link_words");

    private static String squash(String text) {
        return SPACES.matcher(text).replaceAll(" ");
    }

    /** The occurrence lies inside one of the document's italic spans (contexts.in_emphasis). */
    static boolean inEmphasis(Occurrence occ, List<String> spans) {
        String before = squash(occ.before());
        String after = squash(occ.after());
        String surface = squash(occ.surface());
        for (String raw : spans) {
            String span = squash(raw);
            if (PyText.length(span) > WINDOW || PyText.strip(span).equals(surface)) {
                continue;
            }
            int at = span.indexOf(surface);
            while (at >= 0) {
                if (before.endsWith(span.substring(0, at)) && after.startsWith(span.substring(at + surface.length()))) {
                    return true;
                }
                at = span.indexOf(surface, at + 1);
            }
        }
        return false;
    }

    /** Why this occurrence is not a place mention (a rule name), or null (contexts.not_a_place). */
    static String notAPlace(Occurrence occ, Predicate<String> isPlace, Set<String> personNames, List<String> emphasis) {
        String before = PyText.tail(occ.before(), NEAR);
        String after = occ.after();
        String last = PyText.tail(PyText.rstrip(before), 3);
        if (last.endsWith(".") && SIGLUM.matcher(before).find()) {
            return "siglum";
        }
        String first = PyText.head(after, 1);
        if (LINK_WORDS.contains(PyText.tail(last, 2))
                        && INSTITUTION_BEFORE.matcher(PyText.tail(occ.before(), 2 * NEAR)).find()
                || (first.isEmpty() || PyText.isSpace(first.codePointAt(0)) || "'’".contains(first))
                        && INSTITUTION_AFTER.matcher(after).lookingAt()) {
            return "institution";
        }
        if (first.equals(",") && SHELFMARK.matcher(after).lookingAt()) {
            return "institution"; // the collection, not the city
        }
        if (last.equals(" of")) {
            var person = PERSON_OF.matcher(before);
            if (person.find()) {
                String word = person.group(1);
                String lower = word.toLowerCase(java.util.Locale.ROOT);
                if (!PLACE_OF_WORDS.contains(lower) && !PyText.isUpper(word) && !isPlace.test(lower)) {
                    return "person-epithet";
                }
            }
        }
        String end = PyText.tail(last, 1);
        if ((end.equals("I") || end.equals("V") || end.equals("X")) && COGNOMEN.matcher(before).find()) {
            return "person-epithet";
        }
        if (PyText.firstIsLower(occ.surface())) {
            int space = occ.surface().indexOf(' ');
            if (GENERIC.contains(space < 0 ? occ.surface() : occ.surface().substring(0, space))) {
                return "common-noun";
            }
        }
        if (personNames.contains(occ.key())
                && (QUEEN.matcher(before).find() || !PLACE_CUE.matcher(before).find())) {
            return "person-name";
        }
        if (emphasis != null && !emphasis.isEmpty() && inEmphasis(occ, emphasis)) {
            return "title";
        }
        return null;
    }

    private static final Pattern TITLE_BEFORE = PyText.re(
            "\\b(?:game|games|played|playing|novel|film|movie|book|journal|series|magazine)"
                    + "(?:\\s+(?:like|called|named|titled|entitled))?\\s+$", true);
    private static final Pattern TITLE_AFTER = PyText.re(
            "^\\s*\\((?:[^()]{0,30}?\\b)?(?:1[6-9]|20)\\d\\d\\b|^\\s+(?:is|was)\\s+(?:only\\s+)?(?:a|one)\\s+"
                    + "(?:\\w+\\s+)?(?:game|novel|film|book)\\b", true);

    /** The words around call the name a game, book or film, or date it like a title. */
    static boolean titleCue(Occurrence occ) {
        return TITLE_BEFORE.matcher(PyText.tail(occ.before(), NEAR)).find()
                || TITLE_AFTER.matcher(occ.after()).lookingAt();
    }

    // --- kind cues ---------------------------------------------------------------------------

    private record Cue(String kind, Pattern pattern) {}

    private static final List<Cue> CUES_BEFORE = List.of(
            new Cue("province", PyText.re(
                    "\\b(?:province|provinces|provincia|proconsul|governor|conventus)\\s+(?:of\\s+)?(?:the\\s+)?$", true)),
            new Cue("diocese", PyText.re("\\bdiocese\\s+of\\s+$", true)),
            new Cue("island", PyText.re("\\b(?:island|isle)\\s+of\\s+$", true)),
            new Cue("island", PyText.re("\\b(?:on|off)\\s+$", false)),
            new Cue("port", PyText.re("\\b(?:port|harbou?r|anchorage)\\s+(?:town\\s+|city\\s+)?(?:of|at)\\s+$", true)),
            new Cue("settlement", PyText.re("\\b(?:city|town|village|polis|colony|site)\\s+of\\s+$", true)),
            new Cue("region", PyText.re("\\b(?:region|land|territory|country|kingdom|area)\\s+of\\s+$", true)),
            new Cue("river", PyText.re("\\briver\\s+$", true)),
            new Cue("mountain", PyText.re("\\b(?:Mount|Mt\\.?|mountain)\\s+$", false)),
            new Cue("modern", PyText.re("\\b(?:modern|today'?s?|present-day|contemporary)\\s+(?:-day\\s+)?$", true)),
            new Cue("ancient", PyText.re(
                    "\\b(?:ancient|classical|archaic|hellenistic|late antique|byzantine|ptolemaic|pharaonic"
                            + "|roman|greek)\\s+$", true)));
    private static final List<Cue> CUES_AFTER = List.of(
            new Cue("island", PyText.re("^\\s+(?:island|isl\\.)", true)),
            new Cue("river", PyText.re("^\\s+(?:river|valley)\\b", true)),
            new Cue("port", PyText.re("^\\s+(?:harbou?r|port)\\b", true)),
            new Cue("province", PyText.re("^\\s+(?:province|provincia)\\b", true)),
            new Cue("modern", PyText.re("^\\s*\\(\\s*modern\\b|^,\\s*(?:modern|today)\\b", true)));

    private static final Pattern QUALIFIER = PyText.re(
            "^,?\\s+(?:in|of|at)\\s+([A-Z][\\w-]+)|^\\s+\\(([A-Z][\\w-]+)\\)", false);

    private static final Pattern ADJECTIVE = PyText.re("(?:^|[^\\w-])([A-Z][a-z]+)ian\\s+$", false);

    /**
     * The region a name is qualified with: "Antioch in Pisidia", "Edessa (Macedonia)", "Pisidian
     * Antioch" (the region's adjective before it); or null.
     */
    static String qualifier(Occurrence occ) {
        var found = QUALIFIER.matcher(occ.after());
        if (found.lookingAt()) {
            return found.group(1) != null ? found.group(1) : found.group(2);
        }
        var adjective = ADJECTIVE.matcher(PyText.tail(occ.before(), NEAR));
        return adjective.find() ? adjective.group(1) + "ia" : null;
    }

    /** The kinds of place the words around ask for (plus "modern" and "ancient"), sorted. */
    static TreeSet<String> kindCues(Occurrence occ) {
        String before = PyText.tail(occ.before(), NEAR);
        TreeSet<String> cues = new TreeSet<>();
        for (Cue cue : CUES_BEFORE) {
            if (cue.pattern().matcher(before).find()) {
                cues.add(cue.kind());
            }
        }
        for (Cue cue : CUES_AFTER) {
            // Python's pattern.search on the text after: "^" anchors at its start.
            if (cue.pattern().matcher(occ.after()).find()) {
                cues.add(cue.kind());
            }
        }
        return cues;
    }
}
