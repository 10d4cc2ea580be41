"""`graphrag.embed` inside Neo4j against the Python embedders: the same vectors (cosine >= 0.9999)
on varied texts, accents, Greek, Chinese and text longer than the model's 256 tokens."""

from __future__ import annotations

import json

import pytest

pytestmark = pytest.mark.e2e

TEXTS = [
    "who stole the lantern?",
    "Who made the silver lantern, and who stole it?",
    "",
    "harbour",
    "  padded with spaces and a tab\t",
    "Der Troll stahl das Licht aus der Kapelle von Hollowmere.",
    "Où se trouve la bibliothèque d'Alexandrie ? Élodie l'a cherchée à Héliopolis.",
    "¿Quién construyó el puente de piedra sobre el río?",
    "Ἀλεξάνδρεια καὶ ἡ Φάρος",
    "银灯是谁做的？谁偷走了它？",
    "東京とニューヨークの間の距離は？",
    "Москва — столица России.",
    "ÅNGSTRÖM, Æsir, Ørsted, Łódź, Şanlıurfa, Dvořák",
    "e-mail: ada@example.org, URL https://example.org/a?b=c&d=1 #tag @user",
    "Numbers 1,234.56 and 10^9, dates 2023-10-01 and 3rd of May 1999.",
    "emoji 🏮🐉 and symbols ™ © ½ ∑ √",
    "In 1666 the Great Fire of London destroyed the medieval city inside the old Roman wall.",
    "ACRONYMS like NASA, UNESCO and iPhone, CamelCase and snake_case_words.",
    " ".join(["The miller's daughter spun straw into gold by the light of the moon."] * 30),
    " ".join(f"word{i} Ἀθῆναι 北京 Zürich" for i in range(200)),
]


def _java(driver, texts: list[str]) -> list[list[float]]:
    with driver.session() as session:
        rows = session.run("UNWIND $texts AS t RETURN graphrag.embed(t) AS v", texts=texts).data()
    return [row["v"] for row in rows]


def _cosines(a, b) -> list[float]:
    import numpy as np

    x, y = np.array(a), np.array(b)
    return list((x * y).sum(axis=1) / (np.linalg.norm(x, axis=1) * np.linalg.norm(y, axis=1)))


def test_embed_in_neo4j_agrees_with_the_python_embedders(neo4j, onnx_export):
    from graphrag_cypher import onnx_embedder
    from graphrag_cypher.embedder import SentenceTransformerEmbedder, default_model_path

    if onnx_export != onnx_embedder.export_dir():
        pytest.skip("the server reads the project's ONNX export, which is not current: run `graphrag models export`")
    with neo4j.driver() as driver:
        java = _java(driver, TEXTS)
    assert all(len(v) == 384 for v in java)
    onnx = onnx_embedder.OnnxEmbedder(onnx_export).embed(TEXTS)
    reference = SentenceTransformerEmbedder(onnx_embedder.DEFAULT_MODEL, str(default_model_path())).embed(TEXTS)
    to_onnx, to_reference = _cosines(java, onnx), _cosines(java, reference)
    assert min(to_onnx) >= 0.9999, list(zip(TEXTS, to_onnx, strict=True))
    assert min(to_reference) >= 0.9999, list(zip(TEXTS, to_reference, strict=True))
    # a question alone: what `ask` embeds (a batch of one, as in Neo4j) agrees to float rounding
    assert _cosines(java[:1], onnx_embedder.OnnxEmbedder(onnx_export).embed(TEXTS[:1]))[0] > 0.999999


def test_embed_feeds_the_vector_index_in_one_query(neo4j, onnx_export):
    """The Browser use: a question's vector, made and searched in one Cypher statement."""
    from graphrag_cypher import onnx_embedder

    if onnx_export != onnx_embedder.export_dir():
        pytest.skip("the server reads the project's ONNX export, which is not current: run `graphrag models export`")
    texts = [
        "The thief stole the silver lantern at night.",
        "Bread rises in a warm oven.",
        "Ships sail from the harbour.",
    ]
    vectors = onnx_embedder.OnnxEmbedder(onnx_export).embed(texts)
    with neo4j.driver() as driver, driver.session() as session:
        session.run(
            "UNWIND range(0, size($texts) - 1) AS i CREATE (:Chunk {id: 'c' + i, text: $texts[i], embedding: $vectors[i]})",
            texts=texts,
            vectors=vectors,
        ).consume()
        session.run(
            "CREATE VECTOR INDEX chunk_embedding FOR (c:Chunk) ON c.embedding "
            "OPTIONS {indexConfig: {`vector.dimensions`: 384, `vector.similarity_function`: 'cosine'}}"
        ).consume()
        session.run("CALL db.awaitIndexes(60)").consume()
        rows = session.run(
            "CALL db.index.vector.queryNodes('chunk_embedding', 3, graphrag.embed($q)) YIELD node, score "
            "RETURN node.id AS id, score",
            q="who stole the lantern?",
        ).data()
    assert [r["id"] for r in rows][0] == "c0"


def test_doctor_says_whether_in_database_embedding_works(schema, run_cli, onnx_export):
    from graphrag_cypher import onnx_embedder

    if onnx_export != onnx_embedder.export_dir():
        pytest.skip("the server reads the project's ONNX export, which is not current: run `graphrag models export`")
    report = json.loads(run_cli("doctor", "--json").stdout)
    embedding = report["graphrag_plugin"]["in_database_embedding"]
    assert embedding["works"] is True and "384 dimensions" in embedding["detail"], embedding
    text = run_cli("doctor").stdout
    assert "in-database embedding: works: graphrag.embed (384 dimensions" in " ".join(text.split())
