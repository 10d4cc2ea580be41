package org.graphrag.procedures;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;

/**
 * The question's keywords and full-text query against the case file the Python suite reads too
 * ({@code tests/fixtures/keyword_cases.tsv}, made by {@code graphrag_cypher.retrieval.question} {@code keywords}).
 */
class QuestionWordsTest {

    @Test
    void keywordsAndQueryAreThoseOfThePythonCode() throws Exception {
        Path file = FoldCasesTest.caseFile().resolveSibling("keyword_cases.tsv");
        int cases = 0;
        for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            String[] f = line.split("\t", -1);
            List<String> expected = f[2].isEmpty() ? List.of() : List.of(f[2].split(" \\| "));
            List<String> words = QuestionWords.keywords(f[0], Integer.parseInt(f[1]));
            assertEquals(expected, words, f[0]);
            if (f[1].equals("12")) {  // graphrag.search's query: of the first 12 keywords
                assertEquals(f[3], new SearchProcedure().analyse(f[0], false).query, f[0]);
            }
            cases++;
        }
        assertTrue(cases >= 20, "cases read: " + cases);
    }

    @Test
    void namesOccurOnWordBoundariesOnly() {
        assertTrue(SearchProcedure.occurs("who is edric varn?", "edric"));
        assertTrue(!SearchProcedure.occurs("who is edrick?", "edric"));
        assertTrue(SearchProcedure.occurs("edrick and edric", "edric"));
        assertEquals("silver lantern", SearchProcedure.nameKey("The  Silver\u00a0Lantern"));
    }
}
