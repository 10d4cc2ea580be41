package org.graphrag.procedures;

import java.text.Normalizer;
import java.util.Locale;
import java.util.regex.Pattern;

import org.neo4j.procedure.Description;
import org.neo4j.procedure.Name;
import org.neo4j.procedure.UserFunction;

/**
 * Text helpers for graphrag's Cypher: the accent fold and the entity-name key.
 *
 * <p>The same rule as Python's {@code graphrag_cypher.text.fold} and {@code norm_name}; both
 * are tested against one case file ({@code tests/fixtures/fold_cases.tsv}).
 * Call as {@code RETURN graphrag.fold('Ŝão Paulo')}.
 */
public class TextFunctions {

    private static final Pattern JOINERS = Pattern.compile("[\\-\u2010\u2011\u2012\u2013\u2014'\u2019`\u00b4]");
    // Python's [^\w\s]|_ : neither a letter or digit nor whitespace, and "_".
    private static final Pattern PUNCT = Pattern.compile("[^\\p{L}\\p{N}\\s\\p{Z}\u001c-\u001f\u0085]|_");

    private static boolean isMark(int cp) {
        int type = Character.getType(cp);
        return type == Character.NON_SPACING_MARK || type == Character.ENCLOSING_MARK
                || type == Character.COMBINING_SPACING_MARK;
    }

    /**
     * The accent fold: canonical decomposition (NFD), combining marks dropped, and each
     * remaining character through its upper case and back to lower case when that stays one
     * character (so ı, ς, ſ fold like Java's case-insensitive match: i, σ, s), else its lower
     * case (ß stays ß, ﬁ stays ﬁ). One character never becomes two, so positions in the folded
     * text map back to the original. {@code null} stays {@code null}.
     */
    public static String foldText(String text) {
        if (text == null) {
            return null;
        }
        String s = Normalizer.normalize(text, Normalizer.Form.NFD);
        StringBuilder out = new StringBuilder(s.length());
        s.codePoints().forEach(cp -> {
            if (isMark(cp)) {
                return;
            }
            String ch = new String(Character.toChars(cp));
            String folded = ch.toUpperCase(Locale.ROOT).toLowerCase(Locale.ROOT);
            out.append(folded.codePointCount(0, folded.length()) == 1 ? folded : ch.toLowerCase(Locale.ROOT));
        });
        return out.toString();
    }

    /**
     * The entity-name key stored as {@code normName}: the fold, joiners (hyphens, dashes,
     * apostrophes) removed, other punctuation and "_" as spaces, whitespace collapsed and trimmed.
     * "Dawn-Fang" and "dawnfang", "Zoë" and "zoe" meet. {@code null} stays {@code null}.
     */
    public static String normNameText(String name) {
        if (name == null) {
            return null;
        }
        String s = JOINERS.matcher(foldText(name)).replaceAll("");
        s = PUNCT.matcher(s).replaceAll(" ");
        StringBuilder out = new StringBuilder(s.length());
        boolean space = false;
        for (int i = 0; i < s.length(); ) {
            int cp = s.codePointAt(i);
            i += Character.charCount(cp);
            if (isSpace(cp)) {
                space = out.length() > 0;
            } else {
                if (space) {
                    out.append(' ');
                    space = false;
                }
                out.appendCodePoint(cp);
            }
        }
        return out.toString();
    }

    /** Python's str.isspace(): whitespace bidi classes and the Zs category. */
    private static boolean isSpace(int cp) {
        if (cp >= 0x1c && cp <= 0x1f || cp == 0x85) {
            return true;
        }
        return Character.isWhitespace(cp) || Character.isSpaceChar(cp);
    }

    @UserFunction("graphrag.fold")
    @Description("graphrag.fold(text) - accent- and case-folded text (NFD, marks dropped, lower case); null for null.")
    public String fold(@Name("text") String text) {
        return foldText(text);
    }

    @UserFunction("graphrag.normName")
    @Description("graphrag.normName(name) - the normName key of an entity name: folded, joiners removed, "
            + "punctuation as spaces, whitespace collapsed; null for null.")
    public String normName(@Name("name") String name) {
        return normNameText(name);
    }

    @UserFunction("graphrag.version")
    @Description("graphrag.version() - version of the graphrag procedures plugin.")
    public String version() {
        String v = TextFunctions.class.getPackage().getImplementationVersion();
        return v == null ? "dev" : v;
    }
}
