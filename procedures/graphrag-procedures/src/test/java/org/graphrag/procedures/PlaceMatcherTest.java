package org.graphrag.procedures;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;

/** The matching rule of linkers/matcher.py, case by case (tests/unit/linkers has the Python side). */
class PlaceMatcherTest {

    private static List<String> found(List<String> keys, String text) {
        return new PlaceMatcher(keys, true, true).find(text).stream()
                .map(m -> m.key() + "@" + m.start() + "-" + m.end() + "=" + m.surface())
                .collect(Collectors.toList());
    }

    @Test
    void findsFoldedNamesOnWordBoundaries() {
        assertEquals(List.of("babylon@3-10=Babylon"), found(List.of("babylon"), "At Babylon's gate"));
        assertEquals(List.of("alexandria@3-13=Alexandría"), found(List.of("alexandria"), "In Alexandría."));
        assertEquals(List.of(), found(List.of("rome"), "chromosome Romes"));
    }

    @Test
    void keepsOverlappingNamesForTheDecisionToChoose() {
        assertEquals(List.of("asia@0-4=Asia", "asia minor@0-10=Asia Minor"),
                found(List.of("asia", "asia minor"), "Asia Minor"));
    }

    @Test
    void needsACapitalAndNoAcronym() {
        assertEquals(List.of(), found(List.of("rome"), "rome"));
        assertEquals(List.of(), found(List.of("uri"), "the URI"));
        assertEquals(List.of("thebes@0-6=THEBES"), found(List.of("thebes"), "THEBES"));
    }

    @Test
    void skipsJoinedWordsPublisherTailsAndRegnalNumerals() {
        assertEquals(List.of(), found(List.of("egypte"), "l'Égypte"));
        assertEquals(List.of(), found(List.of("london"), "London: Routledge"));
        assertEquals(List.of(), found(List.of("paris"), "Paris 1998"));
        assertEquals(List.of(), found(List.of("oxford"), "Oxford, UK: Blackwell"));
        assertEquals(List.of("oxford@0-6=Oxford"), found(List.of("oxford"), "Oxford, and Cambridge: both"));
        assertEquals(List.of("paris@0-5=Paris"), found(List.of("paris"), "Paris 2000 BC"));
        assertEquals(List.of(), found(List.of("arsinoe"), "Arsinoe II"));
        assertEquals(List.of("arsinoe@0-7=Arsinoe"), found(List.of("arsinoe"), "Arsinoe IIa"));
    }

    @Test
    void offsetsAreCodePointsOfTheStoredText() {
        // a decomposed accent (two code points) and an astral character before the name
        assertEquals(List.of("sao paulo@2-12=São Paulo"), found(List.of("sao paulo"), "\uD835\uDC00 Sa\u0303o Paulo"));
        // two names with one bounded form: the one the text spells
        assertEquals(List.of("tell el-amarna@0-14=Tell el-Amarna"),
                found(List.of("tell el amarna", "tell el-amarna"), "Tell el-Amarna"));
    }
}
