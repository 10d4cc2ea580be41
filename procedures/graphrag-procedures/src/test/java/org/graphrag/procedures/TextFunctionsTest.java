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
    void foldsAccentsAndCaseOneCharacterForOne() {
        assertEquals("sao paulo", TextFunctions.foldText("São Paulo"));
        assertEquals("zurich", TextFunctions.foldText("ZÜRICH"));
        assertEquals("meydancikkale", TextFunctions.foldText("Meydancıkkale"));
        assertEquals("straße", TextFunctions.foldText("Straße"));
        assertEquals("  new york ", TextFunctions.foldText("  New York "));
        assertNull(TextFunctions.foldText(null));
    }

    @Test
    void normNameDropsJoinersAndPunctuation() {
        assertEquals("dawnfang", TextFunctions.normNameText("Dawn-Fang"));
        assertEquals("zoe ohara", TextFunctions.normNameText("  Zoë  O'Hara "));
        assertEquals("new york", TextFunctions.normNameText("  New \t\n York "));
        assertNull(TextFunctions.normNameText(null));
    }

    @Test
    void isRegisteredAsNamespacedUserFunction() throws Exception {
        Method m = TextFunctions.class.getMethod("fold", String.class);
        UserFunction uf = m.getAnnotation(UserFunction.class);
        assertNotNull(uf, "fold must be a @UserFunction");
        assertEquals("graphrag.fold", uf.value());
        assertTrue(new TextFunctions().fold("Á").equals("a"));
        Method n = TextFunctions.class.getMethod("normName", String.class);
        assertEquals("graphrag.normName", n.getAnnotation(UserFunction.class).value());
    }
}
