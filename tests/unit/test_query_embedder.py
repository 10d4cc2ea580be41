"""The query embedder: all-MiniLM-L6-v2 through ONNX Runtime agrees with sentence-transformers,
answering a question imports no torch, and what cannot be used says why."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from graphrag_cypher import onnx_embedder
from graphrag_cypher.config import load_settings
from graphrag_cypher.embedder import default_model_path
from graphrag_cypher.errors import GraphragError
from graphrag_cypher.onnx_embedder import query_backend

pytestmark = [pytest.mark.model, pytest.mark.process]

LONG = " ".join(["The miller's daughter spun the straw into gold while the river Wend ran low."] * 40)
TEXTS = [
    "Who made the silver lantern, and who stole it?",
    "harbour",
    "a",
    "",
    "   ",
    "\n\t",
    "?!",
    "Der Troll stahl das Licht aus der Kapelle von Hollowmere.",
    "Qui a fabriqué la lanterne d'argent ?",
    "银灯是谁做的？谁偷走了它？",
    "Ἀλεξάνδρεια καὶ ἡ Φάρος",
    "Как тролль украл свет?",
    "مكتبة الإسكندرية",
    "lantern 🏮 stolen 🧌",
    "  leading and trailing spaces  ",
    LONG,  # far over 256 tokens: both truncate to the same 256
    "Pleiades 727070 (Alexandria), P. Oxy. 1.1; cf. ibid. pp. 12-14.",
]


@pytest.fixture
def export(onnx_export) -> Path:
    return onnx_export


def test_onnx_vectors_agree_with_sentence_transformers(export):
    from graphrag_cypher.embedder import local_model

    reference = local_model("sentence-transformers/all-MiniLM-L6-v2", str(default_model_path()))
    onnx = onnx_embedder.OnnxEmbedder(export)
    assert len(onnx.tokenizer.encode(LONG).ids) == 256 == reference.model.max_seq_length
    expected = reference.embed(TEXTS)
    batched = onnx.embed(TEXTS)  # one padded batch per BATCH texts, sorted by length
    single = [onnx.embed_query(text) for text in TEXTS]
    for name, got in (("batched", batched), ("one by one", single)):
        for text, a, b in zip(TEXTS, expected, got, strict=True):
            cosine = sum(x * y for x, y in zip(a, b, strict=True))
            assert cosine >= 0.9999, (name, text[:40], cosine)
    assert len(batched) == len(TEXTS) and all(len(v) == 384 for v in batched)
    assert onnx.embed([]) == []


def test_answering_a_question_imports_no_torch(export):
    """The ask path (CLI, retrieval, server engine) and a query embedding leave torch,
    transformers and sentence-transformers unimported."""
    code = """
import sys
import graphrag_cypher.cli.main, graphrag_cypher.cli.ask, graphrag_cypher.retrieval.qa
from graphrag_cypher.config import load_settings
from graphrag_cypher.onnx_embedder import make_query_embedder
embedder = make_query_embedder(load_settings({}))
vector = embedder.embed_query("Who made the silver lantern?")
heavy = sorted({m.split(".")[0] for m in sys.modules} & {"torch", "transformers", "sentence_transformers"})
print(embedder.backend, len(vector), heavy)
"""
    env = dict(os.environ, GRAPHRAG_MODELS_DIR=str(export.parent))
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["onnx", "384", "[]"], out.stdout


def test_without_a_usable_export_questions_fall_back_and_say_why(tmp_path, monkeypatch, export):
    monkeypatch.setenv("GRAPHRAG_MODELS_DIR", str(tmp_path))
    backend, why = query_backend(load_settings({}))
    assert backend == "sentence-transformers" and "no ONNX export" in why and "graphrag models export" in why

    target = tmp_path / onnx_embedder.EXPORT_NAME
    target.mkdir()
    manifest = json.loads((export / "manifest.json").read_text())
    for name in ("model.onnx", onnx_embedder.WEIGHTS, "tokenizer.json"):
        (target / name).symlink_to(export / name)
    (target / "manifest.json").write_text(json.dumps(manifest))
    assert query_backend(load_settings({}))[0] == "onnx"

    manifest["stat_key"][0][1] += 1  # the model's config.json is not the one exported
    (target / "manifest.json").write_text(json.dumps(manifest))
    backend, why = query_backend(load_settings({}))
    assert backend == "sentence-transformers" and "model changed" in why

    other = load_settings({"GRAPHRAG_EMBEDDER": "openai/text-embedding-3-small"})
    assert query_backend(other) == (
        "openai",
        "the configured embedder openai/text-embedding-3-small is not the default model",
    )


def test_a_changed_model_is_exported_again(tmp_path):
    """Same files: nothing to do. A changed file (here max_seq_length 128): a new export, checked
    against sentence-transformers of the changed model, truncating where it does."""
    source = Path(default_model_path())
    model = tmp_path / "model"
    for name in onnx_embedder.MODEL_FILES + ("config_sentence_transformers.json", "vocab.txt", "tokenizer_config.json"):
        (model / name).parent.mkdir(parents=True, exist_ok=True)
        if (source / name).exists():
            (model / name).symlink_to(source / name)
    target = tmp_path / "models" / onnx_embedder.EXPORT_NAME
    first = onnx_embedder.export(model, target)
    assert first["exported"] and first["max_seq_length"] == 256
    assert onnx_embedder.export(model, target)["exported"] is False
    assert onnx_embedder.check(model, target)[0]

    (model / "sentence_bert_config.json").unlink()
    (model / "sentence_bert_config.json").write_text('{"max_seq_length": 128, "do_lower_case": false}')
    assert not onnx_embedder.check(model, target)[0]
    second = onnx_embedder.export(model, target)
    assert second["exported"] and second["fingerprint"] != first["fingerprint"] and second["max_seq_length"] == 128
    assert onnx_embedder.check(model, target)[0] and second["min_cosine"] >= 0.9999
    assert len(onnx_embedder.OnnxEmbedder(target).tokenizer.encode(LONG).ids) == 128


def test_a_failed_export_is_one_line_and_the_doctor_says_why(tmp_path):
    target = tmp_path / "models" / onnx_embedder.EXPORT_NAME
    with pytest.raises(GraphragError, match="the ONNX export failed: .*lacks config.json"):
        onnx_embedder.export(tmp_path / "no-model", target)
    usable, why = onnx_embedder.check(target=target)
    assert not usable and "the last export failed" in why and "lacks config.json" in why
