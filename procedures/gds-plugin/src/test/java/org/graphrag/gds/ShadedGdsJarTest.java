package org.graphrag.gds;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.jar.JarFile;
import java.util.stream.Collectors;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Checks the shaded Open GDS plugin jar. It runs after the shade step in the package phase
 * (execution "shaded-jar-check"); in a plain {@code mvn test} it runs only when a jar from an
 * earlier package build exists.
 */
class ShadedGdsJarTest {

    private static List<String> entries;
    private static JarFile jar;

    @BeforeAll
    static void open() throws IOException {
        Path path = Path.of(System.getProperty("gds.jar", "target/open-gds-2.13.9.jar"));
        assumeTrue(Files.isRegularFile(path), "shaded jar not built yet: " + path);
        jar = new JarFile(path.toFile());
        entries = jar.stream().map(e -> e.getName()).collect(Collectors.toList());
    }

    @Test
    void containsGdsProceduresAndExtension() throws IOException {
        assertTrue(entries.contains("org/neo4j/gds/extension/OpenGraphDataScienceExtension.class"));
        assertTrue(entries.stream().anyMatch(n -> n.startsWith("org/neo4j/gds/pagerank/")));
        String services = new String(
                jar.getInputStream(jar.getEntry("META-INF/services/org.neo4j.kernel.extension.ExtensionFactory"))
                        .readAllBytes(),
                StandardCharsets.UTF_8);
        // Merged from several GDS modules by the ServicesResourceTransformer.
        assertTrue(services.contains("org.neo4j.gds.extension.OpenGraphDataScienceExtension"), services);
        assertTrue(services.contains("org.neo4j.gds.core.utils.progress.TaskRegistryExtension"), services);
    }

    @Test
    void bundlesNoNeo4jClasses() {
        Set<String> neo4jOwn = entries.stream()
                .filter(n -> n.endsWith(".class"))
                .filter(n -> n.startsWith("org/neo4j/") && !n.startsWith("org/neo4j/gds/"))
                .collect(Collectors.toCollection(TreeSet::new));
        assertTrue(neo4jOwn.isEmpty(), "Neo4j classes must not be bundled: " + neo4jOwn.stream().limit(5).toList());
        assertFalse(entries.stream().anyMatch(n -> n.startsWith("org/neo4j/kernel/")));
    }

    @Test
    void relocatesThirdPartyLibraries() {
        for (String pkg : List.of("com/carrotsearch/hppc/", "org/eclipse/collections/", "org/apache/commons/",
                "com/fasterxml/jackson/", "org/agrona/", "de/siegmar/")) {
            assertFalse(entries.stream().anyMatch(n -> n.startsWith(pkg) && n.endsWith(".class")),
                    pkg + " must be relocated");
            assertTrue(entries.stream().anyMatch(n -> n.startsWith("org/neo4j/gds/shaded/" + pkg)),
                    pkg + " missing under org/neo4j/gds/shaded/");
        }
        assertTrue(entries.stream().anyMatch(n -> n.startsWith("org/neo4j/gds/shaded/javassist/")));
        assertFalse(entries.stream().anyMatch(n -> n.startsWith("META-INF/versions/")));
    }
}
