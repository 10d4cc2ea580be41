package org.graphrag.procedures;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

/**
 * The fold and normName rules against the case file the Python suite reads too
 * ({@code tests/fixtures/fold_cases.tsv} at the repository root): one rule, two implementations.
 */
class FoldCasesTest {

    static Path caseFile() {
        Path dir = Path.of("").toAbsolutePath();
        for (Path p = dir; p != null; p = p.getParent()) {
            Path candidate = p.resolve("tests").resolve("fixtures").resolve("fold_cases.tsv");
            if (Files.isRegularFile(candidate)) {
                return candidate;
            }
        }
        throw new IllegalStateException("tests/fixtures/fold_cases.tsv not found above " + dir);
    }

    static String unescape(String field) {
        StringBuilder out = new StringBuilder(field.length());
        for (int i = 0; i < field.length(); i++) {
            char c = field.charAt(i);
            if (c == '\\' && i + 1 < field.length()) {
                char next = field.charAt(i + 1);
                if (next == 'u') {
                    out.append((char) Integer.parseInt(field.substring(i + 2, i + 6), 16));
                    i += 5;
                    continue;
                } else if (next == 't') {
                    out.append('\t');
                    i += 1;
                    continue;
                } else if (next == '\\') {
                    out.append('\\');
                    i += 1;
                    continue;
                }
            }
            out.append(c);
        }
        return out.toString();
    }

    static List<String[]> cases() throws IOException {
        List<String[]> rows = new ArrayList<>();
        for (String line : Files.readAllLines(caseFile(), StandardCharsets.UTF_8)) {
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            String[] f = line.split("\t", -1);
            rows.add(new String[] {unescape(f[0]), unescape(f[1]), unescape(f[2]), f[3]});
        }
        return rows;
    }

    @Test
    void foldAndNormNameAgreeWithTheSharedCases() throws IOException {
        List<String[]> rows = cases();
        assertTrue(rows.size() >= 20, "the case file has its cases");
        List<String> wrong = new ArrayList<>();
        for (String[] row : rows) {
            String fold = TextFunctions.foldText(row[0]);
            String norm = TextFunctions.normNameText(row[0]);
            if (!fold.equals(row[1])) {
                wrong.add("fold(" + row[0] + ") = " + fold + ", expected " + row[1] + " (" + row[3] + ")");
            }
            if (!norm.equals(row[2])) {
                wrong.add("normName(" + row[0] + ") = " + norm + ", expected " + row[2] + " (" + row[3] + ")");
            }
        }
        assertEquals(List.of(), wrong);
    }

    @Test
    void foldNeverLengthensACharacterAndIsIdempotent() throws IOException {
        for (String[] row : cases()) {
            String once = TextFunctions.foldText(row[0]);
            assertEquals(once, TextFunctions.foldText(once), row[3]);
            assertEquals(row[2], TextFunctions.normNameText(row[2]), row[3]);
        }
    }
}
