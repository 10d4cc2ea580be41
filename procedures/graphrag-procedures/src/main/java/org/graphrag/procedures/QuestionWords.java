package org.graphrag.procedures;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The question's keywords and their Lucene query, as {@code graphrag_cypher.retrieval.question} {@code keywords}
 * and {@code retrieval/base.py} {@code lucene_query} make them: content words in order, de-duplicated
 * case-insensitively, stop words (the lexicon's {@code stop_<language>.txt}, read by both) dropped, name-like words
 * keeping their case, Chinese runs cut at function words. {@code \w} is Python's: letters, numbers and
 * the underscore ({@link RetrieveProcedures#isWord}).
 */
final class QuestionWords {

    /** The question stop words of every language (the lexicon's stop_en, stop_de, stop_fr, stop_es). */
    static final Set<String> STOP = new HashSet<>();
    private static final Pattern CN_SPLIT;
    private static final Pattern LUCENE_SPECIAL = Pattern.compile("([+\\-!(){}\\[\\]^\"~*?:\\\\/&|<>=])");

    static {
        for (String language : List.of("en", "de", "fr", "es")) {
            STOP.addAll(Lexicon.words("stop_" + language));
        }
        // Chinese runs are cut at the lexicon's stop_zh words, longest first, as the Python alternation
        List<String> chinese = new ArrayList<>(Lexicon.words("stop_zh"));
        chinese.sort((a, b) -> Integer.compare(b.length(), a.length()));
        CN_SPLIT = Pattern.compile(String.join("|", chinese.stream().map(Pattern::quote).toList()));
    }

    private QuestionWords() {}

    static boolean isCjk(int cp) {
        return cp >= 0x3400 && cp <= 0x4dbf || cp >= 0x4e00 && cp <= 0x9fff || cp >= 0xf900 && cp <= 0xfaff;
    }

    private static boolean isWordNotUnderscore(int cp) {
        return cp != '_' && RetrieveProcedures.isWord(cp);
    }

    private static boolean isWordInner(int cp) {
        return RetrieveProcedures.isWord(cp) || cp == '\'' || cp == '\u2019' || cp == '.' || cp == '-';
    }

    /** Python's {@code \s}. */
    private static boolean isSpace(int cp) {
        return cp >= 0x1c && cp <= 0x1f || cp == 0x85 || Character.isWhitespace(cp) || Character.isSpaceChar(cp);
    }

    /** {@code keywords(question, max_terms)}. */
    static List<String> keywords(String question, int maxTerms) {
        List<String> out = new ArrayList<>();
        if (question == null || question.isEmpty() || maxTerms <= 0) {
            return out;
        }
        int[] cps = question.codePoints().toArray();
        Set<String> seen = new HashSet<>();
        boolean sentenceStart = true;
        int i = 0;
        while (i < cps.length) {
            int cp = cps[i];
            List<String> terms;
            boolean isFirst = sentenceStart;
            if (isCjk(cp)) {
                int j = i;
                while (j < cps.length && isCjk(cps[j])) {
                    j++;
                }
                sentenceStart = false;
                terms = new ArrayList<>();
                for (String chunk : CN_SPLIT.split(new String(cps, i, j - i), -1)) {
                    if (chunk.codePointCount(0, chunk.length()) >= 2) {
                        terms.add(chunk);
                    }
                }
                i = j;
            } else if (isWordNotUnderscore(cp)) {
                // [^\W_](?:[\w'’.\-]*[^\W_])? : the longest run, backed off to its last word character;
                // a CJK run is a token of its own (the Python code puts spaces around it)
                int end = i + 1;
                for (int j = i + 1; j < cps.length && isWordInner(cps[j]) && !isCjk(cps[j]); j++) {
                    if (isWordNotUnderscore(cps[j])) {
                        end = j + 1;
                    }
                }
                sentenceStart = false;
                terms = word(new String(cps, i, end - i), isFirst);
                i = end;
            } else if ((cp == '.' || cp == '!' || cp == '?')
                    && (i + 1 == cps.length || isSpace(cps[i + 1]) || isCjk(cps[i + 1]))) {
                sentenceStart = true;
                i++;
                continue;
            } else {
                i++;
                continue;
            }
            for (String term : terms) {
                if (seen.add(term.toLowerCase(Locale.ROOT))) {
                    out.add(term);
                }
            }
        }
        return out.size() > maxTerms ? new ArrayList<>(out.subList(0, maxTerms)) : out;
    }

    private static List<String> word(String raw, boolean isFirst) {
        String token = PyText.strip(raw.replaceFirst("['\u2019]s$", ""), ".-'\u2019");
        String lower = token.toLowerCase(Locale.ROOT);
        if (token.codePointCount(0, token.length()) < 2 || STOP.contains(lower) || STOP.contains(lower.replace('\u2019', '\''))) {
            return List.of();
        }
        int first = token.codePointAt(0);
        boolean innerCap = token.substring(Character.charCount(first)).codePoints().anyMatch(Character::isUpperCase);
        return List.of(innerCap || Character.isUpperCase(first) && !isFirst ? token : lower);
    }

    /** {@code escape_lucene}: special characters escaped, the operator words in lower case. */
    static String escapeLucene(String text) {
        String escaped = LUCENE_SPECIAL.matcher(text).replaceAll("\\\\$1");
        StringBuilder out = new StringBuilder();
        Matcher m = Pattern.compile("AND|OR|NOT|TO").matcher(escaped);
        int last = 0;
        while (m.find()) {
            boolean before = m.start() > 0 && RetrieveProcedures.isWord(escaped.codePointBefore(m.start()));
            boolean after = m.end() < escaped.length() && RetrieveProcedures.isWord(escaped.codePointAt(m.end()));
            out.append(escaped, last, m.start()).append(before || after ? m.group() : m.group().toLowerCase(Locale.ROOT));
            last = m.end();
        }
        return out.append(escaped.substring(last)).toString();
    }

    /**
     * The most Lucene clauses one query built from a question may cost ({@code MAX_QUERY_CLAUSES}): Lucene
     * refuses more than 1024, and the chunk and entity indexes search each term in two fields.
     */
    static final int MAX_QUERY_CLAUSES = 256;
    private static final int MAX_TOKEN = 255;  // the standard tokenizer cuts longer tokens

    /**
     * {@code lucene_query(words, operator)}: "" when no word has a word character; a word whose
     * {@link #clauses} would take the query past {@link #MAX_QUERY_CLAUSES} is left out.
     */
    static String luceneQuery(List<String> words, String operator) {
        List<String> terms = new ArrayList<>();
        int budget = MAX_QUERY_CLAUSES;
        for (String w : words) {
            if (w != null && !w.isEmpty() && w.codePoints().anyMatch(RetrieveProcedures::isWord)) {
                String term = PyText.strip(w);
                int cost = clauses(term);
                if (cost <= budget) {
                    budget -= cost;
                    terms.add(escapeLucene(term));
                }
            }
        }
        return String.join(operator, terms);
    }

    /**
     * {@code lucene_clauses}: at least as many clauses as the standard analyzer makes of the term:
     * each run of ASCII letters, digits and underscores (one token for every 255 characters), and
     * each character outside ASCII (a Han character or an emoji is a token of its own).
     */
    static int clauses(String term) {
        int cost = 0;
        int run = 0;
        for (int i = 0; i < term.length(); ) {
            int cp = term.codePointAt(i);
            i += Character.charCount(cp);
            if (cp < 0x80 && (cp == '_' || Character.isLetterOrDigit(cp))) {
                run++;
                continue;
            }
            cost += (run + MAX_TOKEN - 1) / MAX_TOKEN;
            run = 0;
            if (cp >= 0x80) {
                cost++;
            }
        }
        return cost + (run + MAX_TOKEN - 1) / MAX_TOKEN;
    }
}
