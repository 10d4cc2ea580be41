package org.graphrag.procedures;

import java.util.ArrayList;
import java.util.List;

import org.neo4j.procedure.Description;
import org.neo4j.procedure.Name;
import org.neo4j.procedure.UserFunction;

/** {@code graphrag.embed(text)}: the query embedder of the Python side, inside Neo4j. */
public class EmbedFunctions {

    @UserFunction("graphrag.embed")
    @Description("graphrag.embed(text) :: LIST<FLOAT> - the all-MiniLM-L6-v2 vector of a text (384 floats, unit "
            + "length), the same as the Python embedder's (cosine >= 0.9999): the ONNX export of `graphrag models "
            + "export` run by ONNX Runtime inside Neo4j, at most 256 tokens. The model folder is the system property "
            + "graphrag.models.dir or the environment variable GRAPHRAG_MODELS_DIR (the local server sets it); "
            + "loaded once, on first use. null for null. Example: "
            + "CALL db.index.vector.queryNodes('chunk_embedding', 5, graphrag.embed('who stole the lantern?')) "
            + "YIELD node, score RETURN node.id, score")
    public List<Double> embed(@Name("text") String text) {
        if (text == null) {
            return null;
        }
        return asList(embedder().embed(text));
    }

    /** The embedder, loaded on first use. */
    static Embedder embedder() {
        try {
            return Embedder.instance();
        } catch (LinkageError e) {
            throw new IllegalStateException("graphrag.embed needs ONNX Runtime and the DJL tokenizers jars "
                    + "(onnxruntime, ai.djl tokenizers and api, gson) in Neo4j's plugins folder: " + e, e);
        }
    }

    static List<Double> asList(float[] vector) {
        List<Double> out = new ArrayList<>(vector.length);
        for (float x : vector) {
            out.add((double) x);
        }
        return out;
    }
}
