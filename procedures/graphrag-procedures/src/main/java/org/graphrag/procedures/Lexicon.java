package org.graphrag.procedures;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

/**
 * The word lists of {@code graphrag_cypher.lexicon}: the Python package's own files ({@code core/lexicon/*.txt}),
 * copied into the jar at build time, read the same way (words separated by spaces or lines, {@code #} starts a
 * comment). One source for both languages: no word list is written in the plugin's code.
 */
final class Lexicon {

    static final String RESOURCES = "/org/graphrag/procedures/lexicon/";
    private static final Pattern COMMENT = Pattern.compile("(?:^|\\s)#.*");
    private static final Pattern SPACES = Pattern.compile("\\s+", Pattern.UNICODE_CHARACTER_CLASS);
    private static final Map<String, Set<String>> CACHE = new ConcurrentHashMap<>();

    private Lexicon() {}

    /** The word list {@code name} ({@code core/lexicon/<name>.txt}), as written, in file order. */
    static Set<String> words(String name) {
        return CACHE.computeIfAbsent(name, Lexicon::read);
    }

    private static Set<String> read(String name) {
        try (InputStream in = Lexicon.class.getResourceAsStream(RESOURCES + name + ".txt")) {
            if (in == null) {
                throw new IllegalStateException("the plugin jar lacks the lexicon's " + name + ".txt");
            }
            Set<String> out = new LinkedHashSet<>();
            for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().toList()) {
                for (String word : SPACES.split(COMMENT.matcher(line).replaceAll("").strip())) {
                    if (!word.isEmpty()) {
                        out.add(word);
                    }
                }
            }
            return Collections.unmodifiableSet(out);
        } catch (IOException e) {
            throw new IllegalStateException("cannot read the lexicon's " + name + ".txt: " + e.getMessage(), e);
        }
    }
}
