package org.graphrag.procedures;

import java.text.Normalizer;
import java.util.Locale;
import java.util.regex.Pattern;

import org.neo4j.procedure.Description;
import org.neo4j.procedure.Name;
import org.neo4j.procedure.UserFunction;

/**
 * Text helpers used by graphrag's Cypher (e.g. the gazetteer linker).
 *
 * <p>Deployed into Neo4j's plugins folder; call as {@code RETURN graphrag.fold('Ŝão Paulo')}.
 */
public class TextFunctions {

    private static final Pattern COMBINING_MARKS = Pattern.compile("\\p{M}+");
    private static final Pattern WHITESPACE = Pattern.compile("\\s+");

    /**
     * Accent-folds and lower-cases a string: NFKD decomposition, combining marks removed,
     * a few letters without a decomposition mapped by hand (ß, æ, ø, œ, ł, đ, ı), runs of
     * whitespace collapsed to one space, leading/trailing whitespace trimmed.
     * {@code null} stays {@code null}.
     */
    public static String foldText(String text) {
        if (text == null) {
            return null;
        }
        String s = Normalizer.normalize(text, Normalizer.Form.NFKD);
        s = COMBINING_MARKS.matcher(s).replaceAll("");
        s = s.toLowerCase(Locale.ROOT);
        StringBuilder out = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case 'ß' -> out.append("ss");
                case 'æ' -> out.append("ae");
                case 'œ' -> out.append("oe");
                case 'ø' -> out.append('o');
                case 'ł' -> out.append('l');
                case 'đ', 'ð' -> out.append('d');
                case 'ı' -> out.append('i');
                case 'þ' -> out.append("th");
                default -> out.append(c);
            }
        }
        return WHITESPACE.matcher(out).replaceAll(" ").trim();
    }

    @UserFunction("graphrag.fold")
    @Description("graphrag.fold(text) - NFKD accent-fold + lower-case + collapse whitespace; null for null.")
    public String fold(@Name("text") String text) {
        return foldText(text);
    }

    @UserFunction("graphrag.version")
    @Description("graphrag.version() - version of the graphrag procedures plugin.")
    public String version() {
        String v = TextFunctions.class.getPackage().getImplementationVersion();
        return v == null ? "dev" : v;
    }
}
