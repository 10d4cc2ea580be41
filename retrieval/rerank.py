"""Rerankers: a cross-encoder scores (question, passage) pairs, and the evidence is reordered by it
(`rerank`: what `--rerank` does with the top candidates of any mode, and its trace).

``GRAPHRAG_RERANKER`` names one:

- ``cross-encoder:<model>``: a sentence-transformers ``CrossEncoder``, by local path or hub
  name (loaded with ``local_files_only`` unless ``GRAPHRAG_RERANK_DOWNLOAD=1``: nothing is
  downloaded by surprise);
- ``http(s)://host[:port][/v1]``: the ``/rerank`` endpoint of an OpenAI-compatible server
  (llama.cpp ``--reranking``, vLLM, Text Embeddings Inference, Jina- and Cohere-style APIs),
  with ``GRAPHRAG_RERANK_MODEL`` as the model and ``GRAPHRAG_RERANK_API_KEY`` (else
  ``OPENAI_API_KEY``) as the bearer token.

Both return one score per passage, higher is more relevant.
"""

from __future__ import annotations

import os
import threading
import time
from dataclasses import dataclass, field
from functools import lru_cache

from graphrag_cypher import telemetry
from graphrag_cypher.errors import GraphragError

from .base import Evidence


class RerankError(GraphragError):
    """The reranker could not score (one line, naming it)."""


@dataclass(frozen=True)
class EndpointReranker:
    """POST {base}/rerank with {model, query, documents}; reads {results: [{index, relevance_score}]}
    (llama.cpp, vLLM, Jina, Cohere) or [{index, score}] (TEI, which takes `texts` instead)."""

    base_url: str
    model: str | None = None
    api_key: str | None = None
    timeout: float = 60.0

    @property
    def name(self) -> str:
        return f"{self.base_url.rstrip('/')}/rerank" + (f" ({self.model})" if self.model else "")

    def score(self, query: str, texts: list[str]) -> list[float]:
        import httpx

        if not texts:
            return []
        url = self.base_url.rstrip("/") + "/rerank"
        headers = {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}
        body: dict = {"query": query, "documents": texts, "top_n": len(texts)}
        if self.model:
            body["model"] = self.model
        try:
            response = httpx.post(url, json=body, headers=headers, timeout=self.timeout)
            if response.status_code == 422:  # TEI names the passages `texts`
                tei = {"query": query, "texts": texts, "raw_scores": False}
                response = httpx.post(url, json=tei, headers=headers, timeout=self.timeout)
        except httpx.TimeoutException as exc:
            raise RerankError(f"the reranker at {url} did not answer in {self.timeout:g} s") from exc
        except httpx.HTTPError as exc:
            raise RerankError(f"cannot reach the reranker at {url}: check GRAPHRAG_RERANKER") from exc
        if response.status_code >= 400:
            first = (response.text or "").strip().splitlines()[:1]
            raise RerankError(f"the reranker at {url} answered {response.status_code}: {''.join(first)[:200]}")
        try:
            data = response.json()
            rows = data["results"] if isinstance(data, dict) else data
            scores = [float("-inf")] * len(texts)
            for row in rows:
                value = row["relevance_score"] if "relevance_score" in row else row["score"]
                scores[int(row["index"])] = float(value)
        except (ValueError, KeyError, TypeError, IndexError) as exc:
            raise RerankError(f"the reranker at {url} sent no scores this client can read ({exc})") from exc
        return scores


@dataclass(frozen=True)
class CrossEncoderReranker:
    """A sentence-transformers CrossEncoder, loaded once per process."""

    model: str
    download: bool = False

    @property
    def name(self) -> str:
        return f"cross-encoder:{self.model}"

    def score(self, query: str, texts: list[str]) -> list[float]:
        if not texts:
            return []
        with _encoding:  # one model shared by request threads: its tokenizer is not safe to share
            encoder = _cross_encoder(self.model, self.download)
            return [float(s) for s in encoder.predict([(query, t) for t in texts], show_progress_bar=False)]


# held while a cross-encoder loads (once, not once per thread that asks at the same time) and scores
_encoding = threading.Lock()


@lru_cache(maxsize=2)
def _cross_encoder(model: str, download: bool):
    from sentence_transformers import CrossEncoder

    try:
        return CrossEncoder(model, local_files_only=not download)
    except (OSError, ValueError) as exc:
        hint = "" if download else " (set GRAPHRAG_RERANK_DOWNLOAD=1 to let it download the model)"
        raise RerankError(f"cannot load the cross-encoder {model!r}: {str(exc).splitlines()[0][:160]}{hint}") from exc


Reranker = EndpointReranker | CrossEncoderReranker


def make_reranker(spec: str | None, environ: dict | None = None) -> Reranker:
    """The reranker `spec` (else GRAPHRAG_RERANKER) names; RerankError when none or an unknown one."""
    env = os.environ if environ is None else environ
    spec = (spec or env.get("GRAPHRAG_RERANKER") or "").strip()
    if not spec:
        raise RerankError(
            "--rerank needs a reranker: set GRAPHRAG_RERANKER to cross-encoder:<model> "
            "or to the URL of a server with a /rerank endpoint"
        )
    if spec.startswith("cross-encoder:"):
        return CrossEncoderReranker(spec.split(":", 1)[1], download=env.get("GRAPHRAG_RERANK_DOWNLOAD") == "1")
    if spec.startswith(("http://", "https://")):
        return EndpointReranker(
            spec,
            model=env.get("GRAPHRAG_RERANK_MODEL") or None,
            api_key=env.get("GRAPHRAG_RERANK_API_KEY") or env.get("OPENAI_API_KEY") or None,
        )
    raise RerankError(f"unknown reranker {spec!r}: use cross-encoder:<model> or http(s)://host/v1")


@dataclass
class RerankTrace:
    """What the reranker did, for --explain and --json."""

    reranker: str
    candidates: int
    kept: int
    moves: list[dict] = field(default_factory=list)  # {chunk_id, before, after, score}, in the new order
    ms: float = 0.0

    def to_dict(self) -> dict:
        return {
            "reranker": self.reranker,
            "candidates": self.candidates,
            "kept": self.kept,
            "order": self.moves,
            "ms": round(self.ms, 1),
        }


@telemetry.traced("graphrag.rerank", lambda reranker, question, candidates, k: {"candidates": len(candidates), "k": k})
def rerank(reranker: Reranker, question: str, candidates: list[Evidence], k: int) -> tuple[list[Evidence], RerankTrace]:
    """The `k` candidates the reranker scores highest (ties keep the mode's order); each keeps its
    mode's trace in `via` plus "rerank", and its score becomes the reranker's."""
    started = time.perf_counter()
    scores = reranker.score(question, [ev.text for ev in candidates])
    order = sorted(range(len(candidates)), key=lambda i: (-scores[i], i))[:k]
    kept = []
    moves = []
    for after, i in enumerate(order, 1):
        ev = candidates[i]
        kept.append(Evidence(ev.chunk_id, ev.document_id, ev.title, ev.uri, ev.text, scores[i], [*ev.via, "rerank"]))
        moves.append({"chunk_id": ev.chunk_id, "before": i + 1, "after": after, "score": round(scores[i], 6)})
    trace = RerankTrace(reranker.name, len(candidates), len(kept), moves, (time.perf_counter() - started) * 1000)
    return kept, trace
