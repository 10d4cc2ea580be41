package org.graphrag.procedures;

import java.text.Normalizer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Known names in text, by one Aho–Corasick pass: the rule of Python's
 * {@code graphrag_cypher.linkers.matcher.Matcher}, implemented a second time for the database.
 *
 * <p>A name matches the text at {@code [start, end)} (code point offsets in the text as stored)
 * when the folded text there equals the folded name, the characters just outside are not word
 * characters (letters, digits, marks, "_") and the match does not follow a letter joined to it
 * by {@code . : ' ’ ·}; with {@code requireCapital} the matched text has an upper-case letter and
 * is not a short acronym; with {@code skipTails} it is not followed by a publisher's tail
 * ("London: Routledge", "Oxford, UK: Blackwell", "Paris 1998") or a ruler's numeral ("Arsinoe II").
 *
 * <p>The automaton runs over code points (not UTF-16 units), so offsets are those Python gives,
 * and each name is stored between two boundary marks, so only names that start and end on word
 * boundaries are reported. It is our own because none on Maven Central works on code points, and
 * the plugin stays one jar with no dependencies to shade.
 */
public final class PlaceMatcher {

    static final int BOUNDARY = 0;
    private static final String JOINERS = ".:'\u2018\u2019\u00b7\u0387\u2024";
    private static final String SPACE = " \\t\\n\\x0B\\f\\r\\u00A0";
    private static final Pattern PUBLISHER_TAIL = Pattern.compile(
            "[" + SPACE + "]*(?:,[" + SPACE + "]*[A-Z][A-Za-z]+[" + SPACE + "]*)?(?::[" + SPACE
                    + "]*([\\p{L}\\p{N}_])|,?[" + SPACE
                    + "]*(?:19|20)[0-9][0-9](?![0-9])(?![" + SPACE + "]*(?:BCE?|B\\.C\\.)))");
    private static final Pattern REGNAL = Pattern.compile(" +[IVX]+");

    /** One match: code point offsets, the text as written (NFC), the folded name. */
    public record Match(int start, int end, String surface, String key) {}

    private record Form(int length, String[] keys) {}

    private final boolean requireCapital;
    private final boolean skipTails;
    private final List<Form> forms = new ArrayList<>();
    private final Automaton automaton = new Automaton();

    public PlaceMatcher(Iterable<String> keys, boolean requireCapital, boolean skipTails) {
        this.requireCapital = requireCapital;
        this.skipTails = skipTails;
        Map<String, List<String>> byForm = new LinkedHashMap<>();
        for (String key : keys) {
            StringBuilder form = new StringBuilder().appendCodePoint(BOUNDARY);
            key.codePoints().forEach(cp -> form.appendCodePoint(isWordChar(cp) ? cp : BOUNDARY));
            form.appendCodePoint(BOUNDARY);
            byForm.computeIfAbsent(form.toString(), f -> new ArrayList<>()).add(key);
        }
        for (Map.Entry<String, List<String>> e : byForm.entrySet()) {
            int[] cps = e.getKey().codePoints().toArray();
            automaton.add(cps, forms.size());
            forms.add(new Form(cps.length - 2, e.getValue().toArray(new String[0])));
        }
        automaton.build();
    }

    public int size() {
        return forms.size();
    }

    // --- the fold, one character at a time (Python's fold_char) ---------------------------

    static boolean isMark(int cp) {
        int type = Character.getType(cp);
        return type == Character.NON_SPACING_MARK || type == Character.ENCLOSING_MARK
                || type == Character.COMBINING_SPACING_MARK;
    }

    /** Python's str.isalpha(): the letter categories. */
    static boolean isLetter(int cp) {
        int type = Character.getType(cp);
        return type == Character.UPPERCASE_LETTER || type == Character.LOWERCASE_LETTER
                || type == Character.TITLECASE_LETTER || type == Character.MODIFIER_LETTER
                || type == Character.OTHER_LETTER;
    }

    private static final boolean[] ASCII_WORD = new boolean[128];

    static {
        for (int c = 0; c < 128; c++) {
            ASCII_WORD[c] = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_';
        }
    }

    /** Python's isalnum() or "_" or a combining mark. */
    static boolean isWordChar(int cp) {
        if (cp < 128) {
            return ASCII_WORD[cp];
        }
        int type = Character.getType(cp);
        return isLetter(cp) || type == Character.DECIMAL_DIGIT_NUMBER || type == Character.LETTER_NUMBER
                || type == Character.OTHER_NUMBER || cp == '_' || isMark(cp);
    }

    /** The folded form of one code point: "" for a combining mark, else lower-case base letters. */
    static String foldChar(int cp) {
        if (cp < 128) {
            return String.valueOf(Character.toChars(Character.toLowerCase(cp)));
        }
        String nfd = Normalizer.normalize(new String(Character.toChars(cp)), Normalizer.Form.NFD);
        StringBuilder out = new StringBuilder();
        nfd.codePoints().forEach(part -> {
            if (isMark(part)) {
                return;
            }
            String ch = new String(Character.toChars(part));
            String folded = ch.toUpperCase(Locale.ROOT).toLowerCase(Locale.ROOT);
            out.append(folded.codePointCount(0, folded.length()) == 1 ? folded : ch.toLowerCase(Locale.ROOT));
        });
        return out.toString();
    }

    // Each BMP character's fold, made on first use (a race only computes the same value twice).
    private static final String[] FOLDED = new String[0x10000];

    static String foldCached(int cp) {
        if (cp >= FOLDED.length) {
            return foldChar(cp);
        }
        String f = FOLDED[cp];
        if (f == null) {
            f = foldChar(cp);
            FOLDED[cp] = f;
        }
        return f;
    }

    // --- matching ---------------------------------------------------------------------------

    /** All accepted matches in `text`, in the automaton's order (by end, then longest). */
    public List<Match> find(String text) {
        List<Match> found = new ArrayList<>();
        if (text == null || text.isEmpty() || forms.isEmpty()) {
            return found;
        }
        int[] cps = text.codePoints().toArray();
        // folded code points, and for each the index of the code point of the text it came from
        int[] folded = new int[cps.length + 8];
        int[] origin = new int[cps.length + 8];
        int n = 0;
        for (int i = 0; i < cps.length; i++) {
            String f = cps[i] < 128 ? null : foldCached(cps[i]);
            if (f == null) {
                if (n == folded.length) {
                    folded = java.util.Arrays.copyOf(folded, n * 2 + 8);
                    origin = java.util.Arrays.copyOf(origin, n * 2 + 8);
                }
                folded[n] = Character.toLowerCase(cps[i]);
                origin[n++] = i;
                continue;
            }
            for (int j = 0; j < f.length(); ) {
                int cp = f.codePointAt(j);
                j += Character.charCount(cp);
                if (n == folded.length) {
                    folded = java.util.Arrays.copyOf(folded, n * 2 + 8);
                    origin = java.util.Arrays.copyOf(origin, n * 2 + 8);
                }
                folded[n] = cp;
                origin[n++] = i;
            }
        }
        int[] marked = new int[n + 2];
        marked[0] = BOUNDARY;
        marked[n + 1] = BOUNDARY;
        for (int i = 0; i < n; i++) {
            marked[i + 1] = isWordChar(folded[i]) ? folded[i] : BOUNDARY;
        }
        final int[] fold = folded;
        final int[] from = origin;
        final int total = n;
        automaton.scan(marked, (last, formIndex) -> {
            Form form = forms.get(formIndex);
            int length = form.length;
            int first = last - length - 1; // in the folded text: the marked text has BOUNDARY in front
            String key = null;
            for (String k : form.keys) {
                if (startsWith(fold, total, k, first)) {
                    key = k;
                    break;
                }
            }
            int start = from[first];
            if (first > 0 && from[first - 1] == start) {
                return; // starts inside one character's expansion
            }
            int end = from[first + length - 1] + 1;
            if (first + length < total && from[first + length] == end - 1) {
                return; // ends inside one
            }
            while (end < cps.length && isMark(cps[end])) {
                end++;
            }
            if (key == null || !accept(text, cps, start, end)) {
                return;
            }
            String surface = Normalizer.normalize(new String(cps, start, end - start), Normalizer.Form.NFC);
            found.add(new Match(start, end, surface, key));
        });
        return found;
    }

    private static boolean startsWith(int[] folded, int length, String key, int at) {
        int i = at;
        for (int j = 0; j < key.length(); ) {
            int cp = key.codePointAt(j);
            j += Character.charCount(cp);
            if (i >= length || folded[i] != cp) {
                return false;
            }
            i++;
        }
        return true;
    }

    private boolean accept(String text, int[] cps, int start, int end) {
        if (start > 0) {
            int before = cps[start - 1];
            if (isWordChar(before)) {
                return false;
            }
            if (JOINERS.indexOf(before) >= 0 && start > 1 && (isLetter(cps[start - 2]) || isMark(cps[start - 2]))) {
                return false;
            }
        }
        if (end < cps.length && isWordChar(cps[end])) {
            return false;
        }
        if (requireCapital && !capitalised(new String(cps, start, end - start))) {
            return false;
        }
        if (skipTails) {
            int at = text.offsetByCodePoints(0, end);
            Matcher tail = PUBLISHER_TAIL.matcher(text).region(at, text.length());
            if (tail.lookingAt()) {
                String letter = tail.group(1);
                if (letter == null || Character.getType(letter.codePointAt(0)) == Character.UPPERCASE_LETTER) {
                    return false;
                }
            }
            Matcher regnal = REGNAL.matcher(text).region(at, text.length());
            if (regnal.lookingAt()) {
                int after = regnal.end();
                if (after == text.length() || !isWordChar(text.codePointAt(after))) {
                    return false;
                }
            }
        }
        return true;
    }

    /** Has an upper-case letter and is not a short acronym ("URI", "LOD"). */
    static boolean capitalised(String surface) {
        String nfc = Normalizer.normalize(surface, Normalizer.Form.NFC);
        boolean upper = false;
        boolean lower = false;
        int count = 0;
        for (int i = 0; i < nfc.length(); ) {
            int cp = nfc.codePointAt(i);
            i += Character.charCount(cp);
            count++;
            int type = Character.getType(cp);
            upper |= type == Character.UPPERCASE_LETTER;
            lower |= type == Character.LOWERCASE_LETTER;
        }
        return upper && (lower || count > 4);
    }

    // --- the automaton: goto (one open-addressing table), fail and output links -------------

    interface Hit {
        void at(int last, int form);
    }

    static final class Automaton {
        private long[] edgeKeys = new long[1 << 16];
        private int[] edgeValues = new int[1 << 16];
        private int edgeCount;
        private int[] fail = new int[1024];
        private int[] out = new int[1024]; // form ending here, or -1
        private int[] dict = new int[1024]; // nearest proper suffix state with an output, or -1
        private int[][] children = new int[1024][]; // built only for the breadth-first pass
        private int states = 1;

        Automaton() {
            java.util.Arrays.fill(out, -1);
        }

        private static long key(int state, int cp) {
            return ((long) state << 21) | cp;
        }

        // States with many children (the root's boundary, the first letters after it) also get a
        // dense table of their BMP transitions: most of a scan's lookups are there.
        private static final int DENSE_CHILDREN = 48;
        private static final int DENSE_MAX = 64;
        private int[][] dense;

        private int get(int state, int cp) {
            if (dense != null) {
                int[] table = dense[state];
                if (table != null && cp < 0x10000) {
                    return table[cp];
                }
            }
            long k = key(state, cp);
            int mask = edgeKeys.length - 1;
            int i = (int) (mix(k) & mask);
            while (true) {
                long stored = edgeKeys[i];
                if (stored == 0) {
                    return -1;
                }
                if (stored == k + 1) {
                    return edgeValues[i];
                }
                i = (i + 1) & mask;
            }
        }

        private void put(int state, int cp, int child) {
            if ((edgeCount + 1) * 2 > edgeKeys.length) {
                grow();
            }
            long k = key(state, cp);
            int mask = edgeKeys.length - 1;
            int i = (int) (mix(k) & mask);
            while (edgeKeys[i] != 0) {
                i = (i + 1) & mask;
            }
            edgeKeys[i] = k + 1; // 0 marks a free slot
            edgeValues[i] = child;
            edgeCount++;
        }

        private void grow() {
            long[] keys = edgeKeys;
            int[] values = edgeValues;
            edgeKeys = new long[keys.length * 2];
            edgeValues = new int[keys.length * 2];
            int mask = edgeKeys.length - 1;
            for (int j = 0; j < keys.length; j++) {
                if (keys[j] != 0) {
                    int i = (int) (mix(keys[j] - 1) & mask);
                    while (edgeKeys[i] != 0) {
                        i = (i + 1) & mask;
                    }
                    edgeKeys[i] = keys[j];
                    edgeValues[i] = values[j];
                }
            }
        }

        private static long mix(long k) {
            k ^= k >>> 33;
            k *= 0xff51afd7ed558ccdL;
            k ^= k >>> 33;
            return k;
        }

        private int newState() {
            if (states == fail.length) {
                int size = states * 2;
                fail = java.util.Arrays.copyOf(fail, size);
                out = java.util.Arrays.copyOf(out, size);
                java.util.Arrays.fill(out, states, size, -1);
                dict = java.util.Arrays.copyOf(dict, size);
                children = java.util.Arrays.copyOf(children, size);
            }
            return states++;
        }

        void add(int[] word, int form) {
            int state = 0;
            for (int cp : word) {
                int next = get(state, cp);
                if (next < 0) {
                    next = newState();
                    put(state, cp, next);
                    int[] list = children[state];
                    list = list == null ? new int[] {cp} : appendTo(list, cp);
                    children[state] = list;
                }
                state = next;
            }
            out[state] = form;
        }

        private static int[] appendTo(int[] list, int cp) {
            int[] longer = java.util.Arrays.copyOf(list, list.length + 1);
            longer[list.length] = cp;
            return longer;
        }

        void build() {
            int[] queue = new int[states];
            int head = 0;
            int tail = 0;
            dict[0] = -1;
            fail[0] = 0;
            if (children[0] != null) {
                for (int cp : children[0]) {
                    int child = get(0, cp);
                    fail[child] = 0;
                    dict[child] = -1;
                    queue[tail++] = child;
                }
            }
            while (head < tail) {
                int state = queue[head++];
                if (children[state] == null) {
                    continue;
                }
                for (int cp : children[state]) {
                    int child = get(state, cp);
                    int f = fail[state];
                    while (f != 0 && get(f, cp) < 0) {
                        f = fail[f];
                    }
                    int g = get(f, cp);
                    fail[child] = g >= 0 && g != child ? g : 0;
                    int fc = fail[child];
                    dict[child] = out[fc] >= 0 ? fc : dict[fc];
                    queue[tail++] = child;
                }
            }
            int[][] tables = new int[states][];
            int made = 0;
            for (int state = 0; state < states && made < DENSE_MAX; state++) {
                int[] list = children[state];
                if (list != null && (state == 0 || list.length >= DENSE_CHILDREN)) {
                    int[] table = new int[0x10000];
                    java.util.Arrays.fill(table, -1);
                    for (int cp : list) {
                        if (cp < 0x10000) {
                            table[cp] = get(state, cp);
                        }
                    }
                    tables[state] = table; // astral code points still go through the hash table
                    made++;
                }
            }
            dense = tables;
            children = null;
        }

        void scan(int[] text, Hit hit) {
            int state = 0;
            for (int i = 0; i < text.length; i++) {
                int cp = text[i];
                int next;
                while ((next = get(state, cp)) < 0 && state != 0) {
                    state = fail[state];
                }
                state = next < 0 ? 0 : next;
                if (out[state] >= 0) {
                    hit.at(i, out[state]);
                }
                for (int d = dict[state]; d >= 0; d = dict[d]) {
                    hit.at(i, out[d]);
                }
            }
        }
    }
}
