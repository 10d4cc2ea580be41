package org.graphrag.procedures;

import java.text.Normalizer;
import java.util.Comparator;
import java.util.regex.Pattern;

/**
 * Python's string semantics where the place linker's rules depend on them: code point slices,
 * {@code str.isspace}, {@code strip}, {@code isupper}, and the regex classes {@code \w}, {@code \s},
 * {@code \b} and {@code $} of Python's {@code re} on str patterns (Java's differ: ASCII classes,
 * a {@code $} before any line terminator), so the rules of {@code linkers/contexts.py} and
 * {@code linkers/disambiguation.py} read the same in both languages.
 */
final class PyText {

    private PyText() {}

    /** Python's \w: letters, numbers, "_". */
    static final String W = "[\\p{L}\\p{N}_]";
    /** The inside of W's brackets, for classes like [^\w'’]. */
    static final String W_IN = "\\p{L}\\p{N}_";
    /** Python's \s: str.isspace() characters. */
    static final String S_IN = "\\t\\n\\x0B\\f\\r\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000";
    static final String S = "[" + S_IN + "]";
    /** Python's \b: between a \w and a non-\w (or an end). */
    static final String B = "(?:(?<=" + W + ")(?!" + W + ")|(?<!" + W + ")(?=" + W + "))";
    /** Python's $ (no MULTILINE): the end, or before a final "\n". */
    static final String END = "(?=\\n?\\z)";

    /** A Python regex, written with \w \s \b \d $ as Python reads them, compiled for Java. */
    static Pattern re(String python, boolean ignoreCase) {
        StringBuilder out = new StringBuilder();
        boolean inClass = false;
        for (int i = 0; i < python.length(); i++) {
            char ch = python.charAt(i);
            if (ch == '\\' && i + 1 < python.length()) {
                char next = python.charAt(++i);
                switch (next) {
                    case 'w' -> out.append(inClass ? W_IN : W);
                    case 's' -> out.append(inClass ? S_IN : S);
                    case 'd' -> out.append(inClass ? "\\p{Nd}" : "\\p{Nd}");
                    case 'b' -> out.append(B);
                    default -> out.append('\\').append(next);
                }
                continue;
            }
            if (ch == '[' && !inClass) {
                inClass = true;
            } else if (ch == ']' && inClass) {
                inClass = false;
            } else if (ch == '$' && !inClass) {
                out.append(END);
                continue;
            }
            out.append(ch);
        }
        int flags = ignoreCase ? Pattern.CASE_INSENSITIVE | Pattern.UNICODE_CASE : 0;
        return Pattern.compile(out.toString(), flags);
    }

    static boolean isSpace(int cp) {
        return cp >= 0x09 && cp <= 0x0d || cp >= 0x1c && cp <= 0x20 || cp == 0x85 || cp == 0xa0 || cp == 0x1680
                || cp >= 0x2000 && cp <= 0x200a || cp == 0x2028 || cp == 0x2029 || cp == 0x202f || cp == 0x205f
                || cp == 0x3000;
    }

    static int length(String s) {
        return s.codePointCount(0, s.length());
    }

    /** s[:n] in code points. */
    static String head(String s, int n) {
        if (n <= 0) {
            return "";
        }
        if (s.length() <= n) {
            return s;
        }
        int count = s.codePointCount(0, s.length());
        return count <= n ? s : s.substring(0, s.offsetByCodePoints(0, n));
    }

    /** s[-n:] in code points. */
    static String tail(String s, int n) {
        int count = s.codePointCount(0, s.length());
        return count <= n ? s : s.substring(s.offsetByCodePoints(0, count - n));
    }

    static String rstrip(String s) {
        int end = s.length();
        while (end > 0) {
            int cp = s.codePointBefore(end);
            if (!isSpace(cp)) {
                break;
            }
            end -= Character.charCount(cp);
        }
        return s.substring(0, end);
    }

    static String strip(String s) {
        String r = rstrip(s);
        int start = 0;
        while (start < r.length()) {
            int cp = r.codePointAt(start);
            if (!isSpace(cp)) {
                break;
            }
            start += Character.charCount(cp);
        }
        return r.substring(start);
    }

    /** s.strip(chars). */
    static String strip(String s, String chars) {
        int start = 0;
        int end = s.length();
        while (start < end && chars.indexOf(s.charAt(start)) >= 0) {
            start++;
        }
        while (end > start && chars.indexOf(s.charAt(end - 1)) >= 0) {
            end--;
        }
        return s.substring(start, end);
    }

    static boolean isAscii(String s) {
        for (int i = 0; i < s.length(); i++) {
            if (s.charAt(i) > 127) {
                return false;
            }
        }
        return true;
    }

    /** str.isupper(): a cased character, and no lower-case one. */
    static boolean isUpper(String s) {
        boolean cased = false;
        for (int i = 0; i < s.length(); ) {
            int cp = s.codePointAt(i);
            i += Character.charCount(cp);
            if (Character.isLowerCase(cp) || Character.isTitleCase(cp)) {
                return false;
            }
            cased |= Character.isUpperCase(cp);
        }
        return cased;
    }

    /** The first code point of s is lower case (Python's s[:1].islower()). */
    static boolean firstIsLower(String s) {
        return !s.isEmpty() && Character.isLowerCase(s.codePointAt(0));
    }

    static String nfc(String s) {
        return Normalizer.normalize(s, Normalizer.Form.NFC);
    }

    /** Python's string order: by code point (Java's compareTo goes by UTF-16 unit). */
    static final Comparator<String> ORDER = (a, b) -> {
        int i = 0;
        int j = 0;
        while (i < a.length() && j < b.length()) {
            int x = a.codePointAt(i);
            int y = b.codePointAt(j);
            if (x != y) {
                return Integer.compare(x, y);
            }
            i += Character.charCount(x);
            j += Character.charCount(y);
        }
        return Integer.compare(a.length() - i, b.length() - j);
    };
}
