"""A GGUF model run in this process by llama.cpp (llama-cpp-python, the optional `local` extra).

``GRAPHRAG_LLM_MODEL=local:/path/model.gguf`` selects it; `llm.py` then sends its chat
completions here instead of to an OpenAI-compatible endpoint. The model is loaded once per
process (a server loads it at start) and answers one request at a time: a llama.cpp context
is not safe to share between threads. Its layers go to the GPU when this llama.cpp build can
offload to one (``GRAPHRAG_LOCAL_GPU_LAYERS`` overrides), else it runs on the CPU, and it says
which and why (`describe`, `inspect`).
"""

from __future__ import annotations

import os
import shutil
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .errors import LLMError, LLMRequestRefused

INSTALL = "pip install 'graphrag-cypher[local]'"
DEFAULT_CONTEXT = 8192
# small models at temperature 0 can repeat themselves until the context is full: a reply stops here
DEFAULT_MAX_TOKENS = 2048
GGUF_MAGIC = b"GGUF"


@dataclass(frozen=True)
class LocalOptions:
    """What the environment asks of a local model."""

    gpu_layers: int | None = None  # None: automatic (all when offload works, else 0); -1: all
    context: int = DEFAULT_CONTEXT  # tokens; 0: the model's own training context
    threads: int | None = None  # None: llama-cpp-python's default (half the CPUs)
    max_tokens: int | None = DEFAULT_MAX_TOKENS  # None: until the model stops or the context is full
    chat_format: str | None = None  # None: the file's chat template (llama-cpp-python's fallback without one)


def _number(environ: dict, name: str, low: int, default: int | None, auto: tuple[str, ...] = ()) -> int | None:
    raw = (environ.get(name) or "").strip().lower()
    if not raw or raw in auto:
        return default
    try:
        value = int(raw)
    except ValueError:
        value = low - 1
    if value < low:
        allowed = f"a whole number >= {low}" + (f" or {auto[0]}" if auto else "")
        raise LLMError(f"{name}={environ.get(name)!r} is not valid: use {allowed}")
    return value


def options(environ: dict | None = None) -> LocalOptions:
    """GRAPHRAG_LOCAL_GPU_LAYERS (auto, all, -1, 0, N), _CTX, _THREADS, _MAX_TOKENS (N, none),
    _CHAT_FORMAT (a llama-cpp-python chat format name); a bad number is one line."""
    environ = dict(os.environ) if environ is None else environ
    layers_raw = (environ.get("GRAPHRAG_LOCAL_GPU_LAYERS") or "").strip().lower()
    gpu_layers = -1 if layers_raw == "all" else _number(environ, "GRAPHRAG_LOCAL_GPU_LAYERS", -1, None, ("auto",))
    max_name = "GRAPHRAG_LOCAL_MAX_TOKENS"
    max_raw = (environ.get(max_name) or "").strip().lower()
    return LocalOptions(
        gpu_layers=gpu_layers,
        context=_number(environ, "GRAPHRAG_LOCAL_CTX", 0, DEFAULT_CONTEXT) or 0,
        threads=_number(environ, "GRAPHRAG_LOCAL_THREADS", 1, None, ("auto",)),
        max_tokens=None if max_raw == "none" else _number(environ, max_name, 1, DEFAULT_MAX_TOKENS, ("none",)),
        chat_format=(environ.get("GRAPHRAG_LOCAL_CHAT_FORMAT") or "").strip() or None,
    )


@dataclass(frozen=True)
class Device:
    """Where the model runs: `gpu_layers` is what llama.cpp is given (-1: every layer)."""

    kind: str  # "gpu" or "cpu"
    gpu_layers: int
    reason: str

    def describe(self) -> str:
        return device_text(self.kind, self.gpu_layers, self.reason)


def device_text(kind: str | None, gpu_layers: int | None, reason: str | None) -> str:
    """`GPU offload: all layers (why)` or `CPU (why)`, as doctor and --explain print it."""
    if kind == "gpu":
        layers = "all layers" if gpu_layers is None or gpu_layers < 0 else f"{gpu_layers} layers"
        return f"GPU offload: {layers} ({reason})"
    return f"CPU ({reason})"


def gpu_present() -> bool:
    """Whether this machine shows a GPU llama.cpp could use (NVIDIA's or AMD's device files or tools)."""
    return any(Path(p).exists() for p in ("/dev/nvidia0", "/dev/kfd")) or bool(
        shutil.which("nvidia-smi") or shutil.which("rocm-smi")
    )


def choose_device(requested: int | None, offload_supported: bool, gpu_seen: bool) -> Device:
    """The device for `requested` GPU layers (None: automatic) given what the build and machine offer."""
    if requested == 0:
        return Device("cpu", 0, "GRAPHRAG_LOCAL_GPU_LAYERS=0")
    if not offload_supported:
        reason = "no GPU offload in this build"
        if gpu_seen:
            reason += "; a GPU is present: reinstall llama-cpp-python with CMAKE_ARGS=-DGGML_CUDA=on"
        if requested is not None:
            reason += f"; GRAPHRAG_LOCAL_GPU_LAYERS={requested} not applied"
        return Device("cpu", 0, reason)
    if requested is None:
        return Device("gpu", -1, "detected; GRAPHRAG_LOCAL_GPU_LAYERS=0 keeps it on the CPU")
    if requested < 0:
        return Device("gpu", -1, "GRAPHRAG_LOCAL_GPU_LAYERS=all")
    return Device("gpu", requested, f"GRAPHRAG_LOCAL_GPU_LAYERS={requested}, the rest on the CPU")


def llama_format(response_format: dict | None) -> dict | None:
    """An OpenAI `response_format` as llama-cpp-python takes it: a JSON schema becomes a
    `json_object` with that schema, which llama.cpp enforces with a grammar."""
    if not response_format or response_format.get("type") == "text":
        return None
    kind = response_format.get("type")
    if kind == "json_schema":
        schema = (response_format.get("json_schema") or {}).get("schema")
        return {"type": "json_object", "schema": schema} if schema else {"type": "json_object"}
    if kind == "json_object":
        return dict(response_format)
    raise LLMRequestRefused(f"the local model takes no response format {kind!r}")


def check_file(path: Path) -> None:
    """One line when `path` is not a readable GGUF file."""
    hint = "set GRAPHRAG_LLM_MODEL=local:/path/to/model.gguf"
    if not path.exists():
        raise LLMError(f"the local model {path} does not exist: {hint}")
    if not path.is_file():
        raise LLMError(f"the local model {path} is not a file: {hint}")
    try:
        with path.open("rb") as handle:
            magic = handle.read(4)
    except OSError as exc:
        raise LLMError(f"cannot read the local model {path}: {exc.strerror or exc}") from exc
    if magic != GGUF_MAGIC:
        raise LLMError(f"the local model {path} is not a GGUF file (llama.cpp reads only GGUF)")


def import_llama_cpp(label: str | None = None) -> Any:
    """The llama_cpp module, or one line saying how to install it."""
    try:
        import llama_cpp
    except ImportError as exc:
        what = f"GRAPHRAG_LLM_MODEL={label}" if label else "a local model"
        raise LLMError(f"{what} needs llama-cpp-python, which is not installed: {INSTALL}") from exc
    return llama_cpp


def _offload_supported(llama_cpp) -> bool:
    try:
        return bool(llama_cpp.llama_supports_gpu_offload())
    except (AttributeError, OSError):  # an old or broken build: assume the CPU
        return False


class LocalModel:
    """One loaded GGUF model and the lock its requests take turns on."""

    def __init__(self, llama, path: Path, device: Device, opts: LocalOptions, version: str, load_ms: float):
        self.llama, self.path, self.device, self.options = llama, path, device, opts
        self.version, self.load_ms = version, load_ms
        self.lock = threading.Lock()

    def describe(self) -> dict:
        """What `ask --json` shows under `llm` beside the model's name."""
        return {
            "backend": f"llama.cpp {self.version}",
            "device": self.device.kind,
            "gpu_layers": self.device.gpu_layers,
            "device_reason": self.device.reason,
        }


_loading = threading.Lock()
_loaded: dict[tuple, LocalModel] = {}


def model(settings) -> LocalModel:
    """The settings' local model, loaded on first use and kept for the process (one at a time)."""
    path = settings.local_model_path
    if path is None or not str(path).strip() or str(path) == ".":
        raise LLMError("GRAPHRAG_LLM_MODEL=local: names no file: set GRAPHRAG_LLM_MODEL=local:/path/to/model.gguf")
    opts = options()
    key = (str(path.resolve()), opts)
    with _loading:
        if key in _loaded:
            return _loaded[key]
        check_file(path)
        llama_cpp = import_llama_cpp(settings.llm_label)
        device = choose_device(opts.gpu_layers, _offload_supported(llama_cpp), gpu_present())
        kwargs: dict[str, Any] = {
            "model_path": str(path),
            "n_gpu_layers": device.gpu_layers,
            "n_ctx": opts.context,
            "verbose": False,
        }
        if opts.threads:
            kwargs.update(n_threads=opts.threads, n_threads_batch=opts.threads)
        if opts.chat_format:
            _check_chat_format(llama_cpp, opts.chat_format)
            kwargs["chat_format"] = opts.chat_format
        started = time.perf_counter()
        try:
            with _quiet_stderr():  # llama.cpp's own notes while it builds the context
                llama = llama_cpp.Llama(**kwargs)
        except (ValueError, RuntimeError, OSError) as exc:
            raise LLMError(f"llama.cpp could not load the local model {path}: {_first_line(exc)}") from exc
        loaded = LocalModel(llama, path, device, opts, llama_cpp.__version__, (time.perf_counter() - started) * 1000)
        for old in list(_loaded):  # a changed configuration replaces the model: one in memory
            _loaded.pop(old).llama.close()
        _loaded[key] = loaded
        return loaded


def _check_chat_format(llama_cpp, name: str) -> None:
    formats = llama_cpp.llama_chat_format
    try:
        formats.get_chat_completion_handler(name)
    except formats.LlamaChatCompletionHandlerNotFoundException as exc:  # its message names the valid ones
        valid = str(exc).split("valid formats:", 1)[-1].strip(" ()[]").replace("'", "")
        raise LLMError(
            f"GRAPHRAG_LOCAL_CHAT_FORMAT={name!r} is not a llama-cpp-python chat format: use one of {valid}"
        ) from exc


@contextmanager
def _quiet_stderr() -> Iterator[None]:
    """File descriptor 2 to /dev/null: llama.cpp writes some notes there past its log callback."""
    try:
        saved = os.dup(2)
    except OSError:  # no stderr to silence
        yield
        return
    try:
        with open(os.devnull, "wb") as null:
            os.dup2(null.fileno(), 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


def loaded(settings) -> LocalModel | None:
    """The settings' model if this process has loaded it (nothing is loaded here)."""
    path = settings.local_model_path
    return next((m for m in _loaded.values() if path is not None and m.path == path), None)


def _first_line(exc: BaseException) -> str:
    lines = str(exc).strip().splitlines()
    return lines[0] if lines else type(exc).__name__


def _failure(loaded_model: LocalModel, exc: Exception) -> LLMError:
    """llama-cpp-python's exception as one line (a stream raises only once it is read)."""
    text = _first_line(exc)
    if "exceed context window" in text:
        return LLMError(f"the prompt does not fit the local model's context ({text}): raise GRAPHRAG_LOCAL_CTX")
    return LLMError(f"the local model {loaded_model.path.name} failed: {text}")


def _request(loaded_model: LocalModel, messages: list[dict], **kwargs) -> Any:
    try:
        return loaded_model.llama.create_chat_completion(
            messages=messages, temperature=0, max_tokens=loaded_model.options.max_tokens, **kwargs
        )
    except (ValueError, RuntimeError) as exc:
        raise _failure(loaded_model, exc) from exc


def stream(settings, messages: list[dict], on_token=None) -> str:
    """A streamed chat completion at temperature 0 (greedy); each piece goes to `on_token`."""
    local = model(settings)
    parts: list[str] = []
    with local.lock:
        chunks = _request(local, messages, stream=True)
        try:
            for chunk in chunks:
                choices = chunk.get("choices") or []
                token = (choices[0].get("delta") or {}).get("content") or "" if choices else ""
                if token:
                    parts.append(token)
                    if on_token:
                        on_token(token)
        except (ValueError, RuntimeError) as exc:
            raise _failure(local, exc) from exc
    return "".join(parts)


def complete(settings, messages: list[dict], response_format: dict | None = None) -> str:
    """A chat completion at temperature 0; a JSON schema is enforced by a grammar."""
    local = model(settings)
    fmt = llama_format(response_format)
    with local.lock:
        reply = _request(local, messages, **({"response_format": fmt} if fmt else {}))
    return reply["choices"][0]["message"].get("content") or ""


def inspect(settings) -> dict:
    """What `graphrag doctor` says of a local model, without loading it: the file, llama.cpp's
    version and the device it would choose, or the one-line problem (`error`)."""
    path = settings.local_model_path
    info: dict = {"path": str(path.resolve()) if path else None, "size_bytes": None, "llama_cpp": None}
    info.update(device=None, gpu_layers=None, device_reason=None, error=None)
    try:
        opts = options()
        if path is None:
            raise LLMError("GRAPHRAG_LLM_MODEL=local: names no file")
        check_file(path)
        info["size_bytes"] = path.stat().st_size
        llama_cpp = import_llama_cpp(settings.llm_label)
    except LLMError as exc:
        info["error"] = str(exc)
        return info
    info["llama_cpp"] = llama_cpp.__version__
    device = choose_device(opts.gpu_layers, _offload_supported(llama_cpp), gpu_present())
    info.update(device=device.kind, gpu_layers=device.gpu_layers, device_reason=device.reason)
    info["context"], info["threads"] = opts.context, opts.threads
    return info
