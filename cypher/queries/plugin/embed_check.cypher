// Whether graphrag.embed works in this Neo4j (loads the ONNX model on first use): the length of
// one vector it makes. Fails with the plugin's one-line reason when the model or its libraries
// are missing.
// params: none
// returns: dimensions
RETURN size(graphrag.embed('graphrag doctor')) AS dimensions
