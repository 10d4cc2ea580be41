package org.graphrag.procedures;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Method;

import org.junit.jupiter.api.Test;
import org.neo4j.procedure.UserFunction;

class TextFunctionsTest {

    @Test
    void foldsAccentsAndCase() {
        assertEquals("sao paulo", TextFunctions.foldText("São Paulo"));
        assertEquals("zurich", TextFunctions.foldText("ZÜRICH"));
        assertEquals("creme brulee", TextFunctions.foldText("Crème Brûlée"));
        assertEquals("malmo", TextFunctions.foldText("Malmö"));
        assertEquals("ancient", TextFunctions.foldText("Ancient"));
    }

    @Test
    void foldsCompatibilityCharactersAndSpecialLetters() {
        // NFKD turns ligatures / full-width forms into plain letters.
        assertEquals("office", TextFunctions.foldText("Oﬃce"));
        assertEquals("abc 123", TextFunctions.foldText("ＡＢＣ　１２３"));
        assertEquals("strasse", TextFunctions.foldText("Straße"));
        assertEquals("lodz", TextFunctions.foldText("Łódź"));
        assertEquals("orsted", TextFunctions.foldText("Ørsted"));
        assertEquals("aero", TextFunctions.foldText("Ærø"));
    }

    @Test
    void collapsesWhitespaceAndKeepsNull() {
        assertEquals("new york", TextFunctions.foldText("  New \t\n York "));
        assertEquals("", TextFunctions.foldText("   "));
        assertNull(TextFunctions.foldText(null));
    }

    @Test
    void isIdempotent() {
        String once = TextFunctions.foldText("Ĉu vi ŝatas Ŭkrainion? Ça va, Ñandú!");
        assertEquals("cu vi satas ukrainion? ca va, nandu!", once);
        assertEquals(once, TextFunctions.foldText(once));
    }

    @Test
    void isRegisteredAsNamespacedUserFunction() throws Exception {
        Method m = TextFunctions.class.getMethod("fold", String.class);
        UserFunction uf = m.getAnnotation(UserFunction.class);
        assertNotNull(uf, "fold must be a @UserFunction");
        assertEquals("graphrag.fold", uf.value());
        assertTrue(new TextFunctions().fold("Á").equals("a"));
    }
}
