"""The default model at query time through ONNX Runtime: the same weights without torch.

`graphrag models export` (a step of `make setup`) exports all-MiniLM-L6-v2's transformer with
``torch.onnx`` once, mean pooling and L2 normalisation inside the graph, into
``.graphrag/models/all-MiniLM-L6-v2/`` beside the model's own ``tokenizer.json``, and checks
the export against sentence-transformers before it is kept. A ``manifest.json`` records the
fingerprint of the model files it came from (sha256), so a changed model re-exports.

At query time :class:`OnnxEmbedder` needs only ``onnxruntime``, ``tokenizers`` and numpy: it
tokenizes as sentence-transformers does (text stripped, lower-cased by the tokenizer, at most
``max_seq_length`` tokens, padded to the longest text of a batch) and makes the same vectors
(cosine >= 0.9999). :func:`check` tells whether an export can be used, and why not; it reads
file sizes and times, not the weights, so it costs nothing on the way to an answer.
Document loading stays on sentence-transformers.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
import time
from collections.abc import Callable, Sequence
from functools import lru_cache
from pathlib import Path

from .config import Settings
from .embedder import DEFAULT_MODEL, Embedder, default_model_path, make_embedder
from .errors import GraphragError

EXPORT_VERSION = 2  # bump when the export itself changes: every export is then redone
EXPORT_NAME = "all-MiniLM-L6-v2"
MIN_COSINE = 0.9999
# what the vectors depend on: weights, architecture, tokenizer, pooling and sequence length
MODEL_FILES = (
    "config.json",
    "model.safetensors",
    "tokenizer.json",
    "sentence_bert_config.json",
    "modules.json",
    "1_Pooling/config.json",
)
INPUTS = ("input_ids", "attention_mask", "token_type_ids")
WEIGHTS = "model.onnx.data"  # the graph's weights, beside model.onnx
BATCH = 16  # texts per run; a batch is padded to its longest text, so texts go sorted by length

# Texts the export is checked on before it is kept (tests check more).
CHECK_TEXTS = [
    "Who made the silver lantern, and who stole it?",
    "",
    "harbour",
    "Der Troll stahl das Licht aus der Kapelle von Hollowmere.",
    "银灯是谁做的？谁偷走了它？",
    "Ἀλεξάνδρεια καὶ ἡ Φάρος",
    " ".join(["The miller's daughter spun straw into gold by the light of the moon."] * 30),
]


def models_dir() -> Path:
    """Where exports live: ``GRAPHRAG_MODELS_DIR``, else the project's ``.graphrag/models``
    (beside the local Neo4j), else ``~/.cache/graphrag/models`` outside a checkout."""
    env = os.environ.get("GRAPHRAG_MODELS_DIR")
    if env:
        return Path(env).expanduser().resolve()
    from .config import project_root

    try:
        return project_root() / ".graphrag" / "models"
    except GraphragError:
        return Path.home() / ".cache" / "graphrag" / "models"


def export_dir() -> Path:
    return models_dir() / EXPORT_NAME


def _files(model_path: Path) -> list[Path]:
    missing = [name for name in MODEL_FILES if not (model_path / name).is_file()]
    if missing:
        raise GraphragError(f"the model at {model_path} lacks {', '.join(missing)}")
    return [model_path / name for name in MODEL_FILES]


def fingerprint(model_path: Path) -> str:
    """sha256 over the model files' names and bytes, and the export version."""
    digest = hashlib.sha256(f"export {EXPORT_VERSION}\n".encode())
    for path in _files(model_path):
        digest.update(f"{path.relative_to(model_path)}\n".encode())
        with open(path, "rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
    return digest.hexdigest()


def stat_key(model_path: Path) -> list[list]:
    """The model files' names, sizes and modification times: what `check` compares."""
    return [[name, (model_path / name).stat().st_size, (model_path / name).stat().st_mtime_ns] for name in MODEL_FILES]


def _manifest(target: Path) -> dict | None:
    try:
        return json.loads((target / "manifest.json").read_text("utf-8"))
    except (OSError, ValueError):
        return None


def _failure_file(target: Path) -> Path:
    return target.with_name(target.name + ".failed")


def _failure(target: Path) -> str | None:
    try:
        return _failure_file(target).read_text("utf-8").strip() or None
    except OSError:
        return None


def check(model_path: Path | None = None, target: Path | None = None) -> tuple[bool, str]:
    """(usable, why): whether the export in `target` was made from the model at `model_path`
    by this version of the export. Reads the manifest and the model files' sizes and times."""
    target = target or export_dir()
    manifest = _manifest(target)
    if manifest is None:
        failed = _failure(target)
        if failed:
            return False, f"no ONNX export in {target}: the last export failed ({failed})"
        return False, f"no ONNX export in {target}: run `graphrag models export`"
    if manifest.get("export_version") != EXPORT_VERSION:
        return False, f"the ONNX export in {target} is of an older version: run `graphrag models export`"
    try:
        model_path = Path(model_path or default_model_path())
        key = stat_key(model_path)
    except (GraphragError, OSError) as exc:
        return False, f"the default model cannot be read ({exc})"
    if manifest.get("model_path") != str(model_path) or manifest.get("stat_key") != key:
        return False, f"the model changed since the ONNX export in {target}: run `graphrag models export`"
    for name in ("model.onnx", WEIGHTS, "tokenizer.json"):
        if not (target / name).is_file():
            return False, f"the ONNX export in {target} lacks {name}: run `graphrag models export`"
    try:
        import onnxruntime  # noqa: F401
        import tokenizers  # noqa: F401
    except ImportError as exc:
        return False, f"{exc.name} is not installed: run `make setup`"
    return True, f"ONNX export in {target} (cosine {manifest.get('min_cosine')} to sentence-transformers)"


class OnnxEmbedder(Embedder):
    """all-MiniLM-L6-v2 through ONNX Runtime and `tokenizers`: sentence-transformers' vectors."""

    def __init__(self, target: Path | None = None, threads: int = 1):
        import numpy as np
        import onnxruntime as ort
        from tokenizers import Tokenizer

        super().__init__()
        started = time.perf_counter()
        target = target or export_dir()
        manifest = _manifest(target) or {}
        self.name = DEFAULT_MODEL
        self.dimensions = int(manifest.get("dimensions", 384))
        self.backend = "onnx"
        self._np = np
        self.tokenizer = Tokenizer.from_file(str(target / "tokenizer.json"))
        # tokenizer.json pads and truncates to 128; sentence-transformers uses max_seq_length
        self.tokenizer.enable_truncation(max_length=int(manifest.get("max_seq_length", 256)))
        self.tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")
        options = ort.SessionOptions()
        options.log_severity_level = 3
        # One thread: a question and a dozen sentences gain little from more, a shared machine
        # loses (measured: on 2 busy cores, 2 threads took 1.4x the wall time and 1.8x the CPU
        # of one), and a server runs requests side by side anyway.
        options.intra_op_num_threads = threads
        self.session = ort.InferenceSession(str(target / "model.onnx"), options, providers=["CPUExecutionProvider"])
        self.load_ms = (time.perf_counter() - started) * 1000

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        if not texts:
            return []
        np = self._np
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        out = np.zeros((len(texts), self.dimensions), dtype=np.float32)
        for start in range(0, len(order), BATCH):
            batch = order[start : start + BATCH]
            encodings = self.tokenizer.encode_batch([str(texts[i]).strip() for i in batch])
            feed = {
                "input_ids": np.array([e.ids for e in encodings], dtype=np.int64),
                "attention_mask": np.array([e.attention_mask for e in encodings], dtype=np.int64),
                "token_type_ids": np.array([e.type_ids for e in encodings], dtype=np.int64),
            }
            out[batch] = self.session.run(None, feed)[0]
        return out.tolist()


def export(
    model_path: Path | None = None,
    target: Path | None = None,
    force: bool = False,
    echo: Callable[[str], object] = lambda *_: None,
) -> dict:
    """Export the model at `model_path` (default: the packaged all-MiniLM-L6-v2) into `target`
    unless an export of the same fingerprint is there. The export is checked against
    sentence-transformers on CHECK_TEXTS and kept only at cosine >= MIN_COSINE; it is written
    to a temporary folder and moved into place, so a failed export leaves the old one; why it
    failed is kept beside it for `check` (and so `graphrag doctor`) to tell."""
    target = target or export_dir()
    try:
        result = _export(Path(model_path or default_model_path()), target, force, echo)
    except Exception as exc:  # torch, onnx and file errors alike: one line, kept for the doctor
        line = " ".join(f"{type(exc).__name__}: {exc}".split())[:300]
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            _failure_file(target).write_text(line + "\n", "utf-8")
        except OSError:
            pass
        raise GraphragError(f"the ONNX export failed: {line}") from exc
    _failure_file(target).unlink(missing_ok=True)
    return result


def _export(model_path: Path, target: Path, force: bool, echo: Callable[[str], object]) -> dict:
    print_ = fingerprint(model_path)
    manifest = _manifest(target)
    if not force and manifest and manifest.get("fingerprint") == print_:
        if manifest.get("stat_key") != stat_key(model_path) or manifest.get("model_path") != str(model_path):
            manifest.update(stat_key=stat_key(model_path), model_path=str(model_path))  # same bytes, touched
            (target / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n", "utf-8")
        return dict(manifest, exported=False, path=str(target))
    echo(f"exporting {EXPORT_NAME} to ONNX in {target}")
    target.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=".export-", dir=target.parent))
    try:
        from .embedder import SentenceTransformerEmbedder

        reference = SentenceTransformerEmbedder(DEFAULT_MODEL, str(model_path))  # not cached: the model changed
        max_seq_length, dimensions = _export_onnx(reference.model, work / "model.onnx")
        shutil.copyfile(model_path / "tokenizer.json", work / "tokenizer.json")
        manifest = {
            "export_version": EXPORT_VERSION,
            "model": DEFAULT_MODEL,
            "model_path": str(model_path),
            "fingerprint": print_,
            "stat_key": stat_key(model_path),
            "max_seq_length": max_seq_length,
            "dimensions": dimensions,
        }
        (work / "manifest.json").write_text(json.dumps(manifest), "utf-8")
        cosine = min(agreement(reference, OnnxEmbedder(work), CHECK_TEXTS))
        if cosine < MIN_COSINE:
            raise GraphragError(f"the ONNX export agrees with sentence-transformers only to cosine {cosine:.6f}")
        manifest["min_cosine"] = round(cosine, 6)
        (work / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n", "utf-8")
        for path in (work, *work.iterdir()):  # public weights: readable like the installed package
            path.chmod(0o755 if path.is_dir() else 0o644)
        old = target.with_name(target.name + ".old")
        shutil.rmtree(old, ignore_errors=True)
        if target.exists():
            target.rename(old)
        work.rename(target)
        shutil.rmtree(old, ignore_errors=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return dict(manifest, exported=True, path=str(target))


def _export_onnx(st, onnx_file: Path) -> tuple[int, int]:
    """The transformer of a SentenceTransformer with mean pooling and L2 normalisation, traced by
    torch.onnx; returns its max_seq_length and dimensions."""
    import warnings

    import torch

    transformer = st[0].auto_model
    # the eager attention traces into plain ops; padded positions are masked in the graph
    if hasattr(transformer, "set_attn_implementation"):
        transformer.set_attn_implementation("eager")
    transformer.eval()

    class Pooled(torch.nn.Module):
        def __init__(self, model):
            super().__init__()
            self.model = model

        def forward(self, input_ids, attention_mask, token_type_ids):
            hidden = self.model(
                input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
            ).last_hidden_state
            mask = attention_mask.unsqueeze(-1).to(hidden.dtype)
            mean = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
            return torch.nn.functional.normalize(mean, p=2, dim=1)

    # a padded example, so nothing specialises on an all-ones mask
    ids = torch.tensor([[101, 7592, 2088, 102], [101, 7592, 102, 0]], dtype=torch.long)
    mask = (ids != 0).long()
    axes = {name: {0: "batch", 1: "tokens"} for name in INPUTS}
    traced = onnx_file.with_name("traced.onnx")
    with warnings.catch_warnings(), torch.no_grad():
        warnings.simplefilter("ignore")
        torch.onnx.export(
            Pooled(transformer).eval(),
            (ids, mask, torch.zeros_like(ids)),
            str(traced),
            dynamo=False,
            input_names=list(INPUTS),
            output_names=["sentence_embedding"],
            dynamic_axes={**axes, "sentence_embedding": {0: "batch"}},
            opset_version=17,
        )
    # the weights beside the graph: ONNX Runtime maps them instead of copying them out of the
    # protobuf, which halves the time to load the model (measured: 79 ms against 163 ms)
    import onnx

    onnx.save_model(
        onnx.load(str(traced)),
        str(onnx_file),
        save_as_external_data=True,
        all_tensors_to_one_file=True,
        location=WEIGHTS,
        size_threshold=1024,
    )
    traced.unlink()
    return int(st.max_seq_length), int(transformer.config.hidden_size)


def agreement(reference: Embedder, exported: Embedder, texts: Sequence[str]) -> list[float]:
    """Cosine of each text's vector from `exported` to its vector from `reference` (both unit length)."""
    import numpy as np

    a, b = np.array(reference.embed(list(texts))), np.array(exported.embed(list(texts)))
    return [float(c) for c in (a * b).sum(axis=1)]


# --------------------------------------------------------------------------- the question's embedder


def query_backend(settings: Settings) -> tuple[str, str]:
    """(backend, why) of the query-time embedder: "onnx" when the default model is configured
    and its ONNX export is there and current, else the embedder `make_embedder` makes."""
    if settings.embedder != DEFAULT_MODEL:
        kind = "openai" if settings.embedder.startswith("openai/") else "sentence-transformers"
        return kind, f"the configured embedder {settings.embedder} is not the default model"
    usable, why = check()
    return ("onnx", why) if usable else ("sentence-transformers", why)


@lru_cache(maxsize=1)
def _onnx_model():
    return OnnxEmbedder()


def make_query_embedder(settings: Settings) -> Embedder:
    """The embedder for questions (ask, chat, serve): the default model through ONNX Runtime
    when its export is there (no torch is imported), else what `make_embedder` makes.
    Documents are always embedded by `make_embedder`."""
    backend, _ = query_backend(settings)
    if backend != "onnx":
        return make_embedder(settings)
    embedder = _onnx_model()
    if embedder.dimensions != settings.embedding_dimensions:
        return make_embedder(settings)  # the same dimension error as the loader would give
    return embedder
