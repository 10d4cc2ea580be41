package org.graphrag.procedures;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import ai.djl.huggingface.tokenizers.Encoding;
import ai.djl.huggingface.tokenizers.HuggingFaceTokenizer;
import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;

/**
 * all-MiniLM-L6-v2 inside Neo4j: the ONNX export of {@code graphrag models export}
 * ({@code model.onnx} with mean pooling and L2 normalisation in the graph, {@code tokenizer.json},
 * {@code manifest.json}) run by ONNX Runtime, tokenized by the Hugging Face tokenizers binding, as
 * the Python {@code OnnxEmbedder} does: the text stripped, at most {@code max_seq_length} (256)
 * tokens, one text per run (so no padding).
 *
 * <p>One instance per export folder and JVM, made on first use; {@link #instance()} is thread-safe
 * and the session and tokenizer are safe to call from many threads at once.
 */
final class Embedder {

    static final String EXPORT_NAME = "all-MiniLM-L6-v2";
    /** The folder holding exports ({@code <dir>/all-MiniLM-L6-v2/model.onnx}), as a system property. */
    static final String DIR_PROPERTY = "graphrag.models.dir";
    /** The same, as an environment variable (the Python side reads it too). */
    static final String DIR_ENV = "GRAPHRAG_MODELS_DIR";

    private static final Pattern MAX_SEQ = Pattern.compile("\"max_seq_length\"\\s*:\\s*(\\d+)");
    private static final Map<Path, Embedder> LOADED = new HashMap<>();

    final Path dir;
    final int maxSeqLength;
    final long loadMillis;
    private final HuggingFaceTokenizer tokenizer;
    private final OrtEnvironment env;
    private final OrtSession session;

    private Embedder(Path dir) throws IOException, OrtException {
        long started = System.nanoTime();
        this.dir = dir;
        this.maxSeqLength = maxSeqLength(dir.resolve("manifest.json"));
        this.tokenizer = HuggingFaceTokenizer.builder()
                .optTokenizerPath(dir.resolve("tokenizer.json"))
                .optAddSpecialTokens(true)
                .optTruncation(true)
                .optMaxLength(maxSeqLength)
                .optPadding(false)
                .build();
        this.env = OrtEnvironment.getEnvironment();
        try (OrtSession.SessionOptions options = new OrtSession.SessionOptions()) {
            // one thread, as the Python embedder: a question gains little from more, and a
            // database runs queries side by side anyway
            options.setIntraOpNumThreads(1);
            options.setInterOpNumThreads(1);
            options.setSessionLogLevel(ai.onnxruntime.OrtLoggingLevel.ORT_LOGGING_LEVEL_ERROR);
            this.session = env.createSession(dir.resolve("model.onnx").toString(), options);
        }
        this.loadMillis = (System.nanoTime() - started) / 1_000_000;
    }

    /** The embedder of the export folder {@link #exportDir()} names, loaded once. */
    static Embedder instance() {
        return instance(exportDir());
    }

    static Embedder instance(Path dir) {
        synchronized (LOADED) {
            Embedder loaded = LOADED.get(dir);
            if (loaded != null) {
                return loaded;
            }
            for (String name : List.of("model.onnx", "model.onnx.data", "tokenizer.json", "manifest.json")) {
                if (!Files.isRegularFile(dir.resolve(name))) {
                    throw new IllegalStateException("graphrag.embed needs the ONNX model: run `graphrag models export` "
                            + "and point Neo4j at its folder (system property " + DIR_PROPERTY + " or environment "
                            + "variable " + DIR_ENV + "); " + dir.resolve(name) + " is missing");
                }
            }
            offlineNatives();
            try {
                Embedder made = new Embedder(dir);
                LOADED.put(dir, made);
                return made;
            } catch (IOException | OrtException | RuntimeException e) {
                throw new IllegalStateException("graphrag.embed could not load the ONNX model in " + dir + ": "
                        + e.getMessage(), e);
            }
        }
    }

    /** Where the export is: {@code <models dir>/all-MiniLM-L6-v2}, the models dir from the system
     *  property, else the environment, else {@code graphrag/models} in the working directory. */
    static Path exportDir() {
        String configured = System.getProperty(DIR_PROPERTY);
        if (configured == null || configured.isBlank()) {
            configured = System.getenv(DIR_ENV);
        }
        Path models = configured == null || configured.isBlank() ? Paths.get("graphrag", "models") : Paths.get(configured);
        return models.resolve(EXPORT_NAME).toAbsolutePath().normalize();
    }

    /** DJL extracts the tokenizer's native library from its jar; never from the network. */
    private static void offlineNatives() {
        if (System.getProperty("ai.djl.offline") == null && System.getenv("DJL_OFFLINE") == null) {
            System.setProperty("ai.djl.offline", "true");
        }
    }

    static int maxSeqLength(Path manifest) throws IOException {
        Matcher m = MAX_SEQ.matcher(Files.readString(manifest));
        return m.find() ? Integer.parseInt(m.group(1)) : 256;
    }

    /** The unit-length sentence embedding of one text. */
    float[] embed(String text) {
        Encoding encoding = tokenizer.encode(PyText.strip(text));
        long[][] ids = {encoding.getIds()};
        long[][] mask = {encoding.getAttentionMask()};
        long[][] types = {encoding.getTypeIds()};
        try (OnnxTensor inputIds = OnnxTensor.createTensor(env, ids);
                OnnxTensor attention = OnnxTensor.createTensor(env, mask);
                OnnxTensor typeIds = OnnxTensor.createTensor(env, types);
                OrtSession.Result result = session.run(
                        Map.of("input_ids", inputIds, "attention_mask", attention, "token_type_ids", typeIds))) {
            return ((float[][]) result.get(0).getValue())[0];
        } catch (OrtException e) {
            throw new IllegalStateException("graphrag.embed: ONNX Runtime failed: " + e.getMessage(), e);
        }
    }
}
