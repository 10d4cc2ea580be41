package org.graphrag.procedures;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.Set;

import org.graphrag.procedures.PlaceContexts.Occurrence;
import org.graphrag.procedures.PlaceDecisions.Decision;
import org.graphrag.procedures.PlaceDecisions.Profile;
import org.junit.jupiter.api.Test;

/**
 * The place linker's deciding rules on small cases. Every expected value is what Python's
 * linkers/contexts.py and linkers/disambiguation.py give for the same input (computed there).
 */
class PlaceDecisionsTest {

    private static Occurrence occ(String text, String name) {
        int i = text.indexOf(name);
        String[] around = PlaceContexts.window(text.substring(Math.max(0, i - 480), i),
                text.substring(i + name.length(), Math.min(text.length(), i + name.length() + 480)));
        return new Occurrence("c1", TextFunctions.foldText(name), i, i + name.length(), name, around[0], around[1]);
    }

    private static String why(String text, String name) {
        return PlaceContexts.notAPlace(occ(text, name), w -> false, Set.of("berenice"), List.of());
    }

    @Test
    void notAPlaceContextsAreTheOnesPythonFinds() {
        assertEquals("person-epithet", why("the works of Heron of Alexandria survive", "Alexandria"));
        assertEquals("siglum", why("see P. Cairo 30758", "Cairo"));
        assertEquals("institution", why("the American School at Athens", "Athens"));
        assertEquals("person-name", why("Queen Berenice ruled", "Berenice"));
        assertNull(why("the port of Berenice", "Berenice"));
        assertEquals("person-epithet", why("Ptolemy XII Auletes", "Auletes"));
        assertEquals("common-noun", why("the sanctuary of Demeter", "sanctuary of Demeter"));
        assertNull(PlaceContexts.notAPlace(occ("the works of Antioch of Pisidia", "Pisidia"), w -> w.equals("antioch"),
                Set.of(), List.of()), "a place before 'of' keeps it a place");
    }

    @Test
    void kindCuesQualifiersAndTheLongestMatch() {
        assertEquals(List.of("island"), List.copyOf(PlaceContexts.kindCues(occ("the island of Samos lies", "Samos"))));
        assertEquals("Pisidia", PlaceContexts.qualifier(occ("Antioch in Pisidia was", "Antioch")));
        Occurrence asia = new Occurrence("c", "asia", 4, 8, "Asia", "", "");
        Occurrence minor = new Occurrence("c", "asia minor", 4, 14, "Asia Minor", "", "");
        assertEquals(List.of(minor), PlaceContexts.longestMatches(List.of(asia, minor)));
    }

    private static final Profile ISLAND = PlaceDecisions.profile("Samos (island)", "An island in the Aegean.",
            "pleiades", List.of("island"), 37.7, 26.8, 3);
    private static final Profile CITY = PlaceDecisions.profile("Samos", "A city on the island.", "pleiades",
            List.of("settlement"), 37.69, 26.94, 1);
    private static final Profile STUB = PlaceDecisions.profile("Samos", "An ancient place, cited: BAtlas 1 A1",
            "pleiades", List.of(), null, null, 1);

    @Test
    void profilesReadKindQualityAndTitles() {
        assertEquals("island", ISLAND.kind());
        assertEquals(1.2, ISLAND.quality());
        assertEquals(Set.of("samos"), ISLAND.titles());
        assertEquals("samos (island) an island in the aegean.", ISLAND.about());
        assertEquals("settlement", CITY.kind());
        assertEquals(1.0, CITY.quality());
        assertNull(STUB.kind());
        assertEquals(-0.4, STUB.quality());
    }

    @Test
    void decisionsScoreAsPythonDoes() {
        Map<String, Profile> profiles = Map.of("a", ISLAND, "b", CITY, "c", STUB);
        Decision cued = PlaceDecisions.decide("samos", List.of("a", "b", "c"), profiles::get, Set.of("island"),
                Set.of(), Set.of(), null, Set.of(), null);
        assertEquals(new Decision("a", 0.963, "kind-cue", List.of("a", "b", "c")), cued);
        Decision bare = PlaceDecisions.decide("samos", List.of("a", "b", "c"), profiles::get, Set.of(), Set.of(),
                Set.of(), null, Set.of(), null);
        assertEquals(new Decision("a", 0.554, "record", List.of("a", "b", "c")), bare);
        Decision alone = PlaceDecisions.decide("samos", List.of("c"), profiles::get, Set.of(), Set.of(), Set.of(),
                null, Set.of(), null);
        assertEquals(new Decision("c", 0.426, "unique-name", List.of("c")), alone);
    }

    @Test
    void aRegionAndItsProvincesAreOnePlaceAndANameOfWordsNamesAStub() {
        Profile region = PlaceDecisions.profile("Lusitania (region)",
                "An ancient region of the western Iberian peninsula.", "pleiades", List.of(), 39.5, -8.0, 1);
        Profile province = PlaceDecisions.profile("Lusitania", "The province of the Roman Empire known as Lusitania.",
                "pleiades", List.of(), 39.0, -7.5, 1);
        Profile late = PlaceDecisions.profile("Lusitania", "One of the Roman provinces of Hispania.", "pleiades",
                List.of(), 38.5, -7.0, 1);
        assertEquals("province", late.kind(), "a record that calls itself one of the provinces");
        Profile nome = PlaceDecisions.profile("Hermopolites Nomos",
                "An ancient place, cited: BAtlas 75 D4 Hermopolites Nomos", "pleiades", List.of(), 27.8, 30.8, 2);
        Map<String, Profile> profiles = Map.of("a", region, "b", province, "c", late, "n", nome);
        assertEquals(new Decision("a", 0.924, "record", List.of("a", "b", "c")), PlaceDecisions.decide("lusitania",
                List.of("a", "b", "c"), profiles::get, Set.of(), Set.of(), Set.of(), null, Set.of(), null));
        assertEquals(new Decision("n", 0.622, "unique-name", List.of("n")), PlaceDecisions.decide("hermopolite nome",
                List.of("n"), profiles::get, Set.of(), Set.of(), Set.of(), null, Set.of(), null));
        assertEquals(new Decision("n", 0.378, "unique-name", List.of("n")), PlaceDecisions.decide("hermopolites",
                List.of("n"), profiles::get, Set.of(), Set.of(), Set.of(), null, Set.of(), null));
    }

    @Test
    void confidencesRoundAsPythonRounds() {
        assertEquals(1.0, PlaceDecisions.round3(1.0005));
        assertEquals(0.001, PlaceDecisions.round3(0.0005));
        assertEquals(2.675, PlaceDecisions.round3(2.6745));
    }

    @Test
    void theWordListsAreThePythonPackagesFiles() {
        PlaceLinker.WordLists lists = PlaceLinker.WordLists.shipped();
        assertTrue(lists.stoplist.contains("well") && lists.stoplist.contains("school"), "linkers/stoplist.txt");
        assertTrue(lists.persons.contains("berenice"), "linkers/persons.txt");
        assertTrue(lists.exonyms.stream().anyMatch(p -> p[0].equals("Egypt") && p[1].equals("pleiades:981503")));
        assertTrue(PlaceLinker.WordLists.skipSections().startsWith("(?is)"), "linkers/skip_sections.txt");
    }
}
