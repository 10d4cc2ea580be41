package org.graphrag.procedures;

import java.util.List;

import org.neo4j.graphdb.Node;
import org.neo4j.kernel.api.impl.schema.vector.VectorSimilarity;
import org.neo4j.kernel.api.vector.VectorSimilarityFunction;
import org.neo4j.values.storable.Values;

/**
 * Cosine similarity exactly as Cypher's {@code vector.similarity.cosine} computes it (Neo4j's own
 * function: each vector L2-normalised in double precision and rounded to float, a float dot product,
 * {@code (1 + cos) / 2} clamped to [0, 1], a float), so that a procedure ranks the rows of a Cypher
 * file in the same order, ties included.
 */
final class Vectors {

    private static final VectorSimilarityFunction COSINE = VectorSimilarity.COSINE.latestImplementation();

    private Vectors() {}

    /** The normalised vector of a node's {@code embedding}, or null where it has none (or a zero one). */
    static float[] of(Node node) {
        Object value = node.getProperty("embedding", null);
        return value == null ? null : COSINE.maybeToValidVector(Values.of(value));
    }

    /** The normalised vector of a parameter list, or null. */
    static float[] of(List<? extends Number> values) {
        if (values == null) {
            return null;
        }
        double[] d = new double[values.size()];
        for (int i = 0; i < d.length; i++) {
            d[i] = values.get(i).doubleValue();
        }
        return COSINE.maybeToValidVector(Values.doubleArray(d));
    }

    /** {@code vector.similarity.cosine(a, b)}: (1 + cos) / 2; null when either vector is missing. */
    static Double similarity(float[] a, float[] b) {
        if (a == null || b == null) {
            return null;
        }
        if (a.length != b.length) {
            throw new IllegalArgumentException("The supplied vectors do not have the same number of dimensions: "
                    + a.length + " and " + b.length);
        }
        return (double) COSINE.compare(a, b);
    }

    /** The cosine itself, in [-1, 1] ({@code 2 * vector.similarity.cosine(a, b) - 1}); null when missing. */
    static Double cosine(float[] a, float[] b) {
        Double s = similarity(a, b);
        return s == null ? null : 2 * s - 1;
    }
}
