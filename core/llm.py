"""The LLM behind one interface: any OpenAI-compatible endpoint, its errors mapped once.

``OPENAI_BASE_URL`` / ``OPENAI_API_KEY`` / ``GRAPHRAG_LLM_MODEL`` choose it (OpenAI, Azure,
Ollama, vLLM, llama.cpp server, LM Studio). 429 and 5xx are retried with backoff by the
client; every failure that is left becomes one line naming the endpoint.
``GRAPHRAG_LLM_MODEL=local:/path/model.gguf`` runs a GGUF model in this process instead
(`local_llm`, llama.cpp): the same calls, the same one-line errors.
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

from . import telemetry
from .errors import GraphragError
from .errors import LLMError as LLMError  # defined in errors (local_llm raises them too); named here
from .errors import LLMRequestRefused as LLMRequestRefused

T = TypeVar("T")
R = TypeVar("R")


def client(settings) -> Any:
    """The OpenAI client for the endpoint; for a local model, the loaded model (loaded once)."""
    if settings.local_model_path is not None:
        from . import local_llm

        return local_llm.model(settings)
    try:
        from openai import OpenAI
    except ImportError as exc:  # pragma: no cover - a dependency of the package
        raise GraphragError("the openai package is not installed: run `make setup`") from exc
    return OpenAI(
        base_url=settings.llm_base_url,
        api_key=os.environ.get("OPENAI_API_KEY") or "not-needed",
        max_retries=4,
        timeout=120,
    )


def _where(settings) -> str:
    return settings.llm_base_url or "api.openai.com"


def _first_line(text: str | None) -> str:
    lines = (text or "").strip().splitlines()
    return lines[0] if lines else ""


@contextmanager
def mapped_errors(settings) -> Iterator[None]:
    """openai's exceptions as one-line LLMErrors."""
    import openai

    where = _where(settings)
    try:
        yield
    except openai.AuthenticationError as exc:
        raise LLMError(f"the LLM at {where} refused the API key ({exc.status_code}): check OPENAI_API_KEY") from exc
    except openai.BadRequestError as exc:
        raise LLMRequestRefused(f"the LLM at {where} answered {exc.status_code}: {_first_line(exc.message)}") from exc
    except openai.APIStatusError as exc:
        raise LLMError(f"the LLM at {where} answered {exc.status_code}: {_first_line(exc.message)}") from exc
    except openai.APITimeoutError as exc:
        raise LLMError(f"the LLM at {where} did not answer in time") from exc
    except openai.APIConnectionError as exc:
        raise LLMError(f"cannot reach the LLM at {where}: check OPENAI_BASE_URL") from exc


def stream(settings, messages: list[dict], on_token: Callable[[str], None] | None = None) -> str:
    """A streamed chat completion at temperature 0; each token goes to `on_token`; the whole text is returned."""
    with telemetry.span("graphrag.llm", **_span_attrs(settings, messages), streamed=True) as traced:
        if settings.local_model_path is not None:
            from . import local_llm

            return local_llm.stream(settings, messages, on_token)
        return _streamed(settings, messages, on_token, traced)


def _span_attrs(settings, messages: list[dict]) -> dict:
    """What an LLM call's span says of it: the model and how many messages (never their text)."""
    return {"gen_ai.operation.name": "chat", "gen_ai.request.model": settings.llm_label, "messages": len(messages)}


def _streamed(settings, messages: list[dict], on_token: Callable[[str], None] | None, traced) -> str:
    with mapped_errors(settings):
        events = client(settings).chat.completions.create(
            model=settings.llm_model, messages=messages, stream=True, temperature=0
        )
        parts = []
        for event in events:
            if getattr(event, "usage", None) is not None:  # sent by endpoints that report a stream's usage
                telemetry.llm_usage(traced, settings.llm_model, event.usage)
            if not event.choices:
                continue
            token = event.choices[0].delta.content or ""
            if token:
                parts.append(token)
                if on_token:
                    on_token(token)
        return "".join(parts)


def complete(settings, messages: list[dict], response_format: dict | None = None, llm_client: Any = None) -> str:
    """A non-streamed chat completion at temperature 0 (`response_format` as the endpoint takes it)."""
    with telemetry.span("graphrag.llm", **_span_attrs(settings, messages), streamed=False) as traced:
        if settings.local_model_path is not None:
            from . import local_llm

            return local_llm.complete(settings, messages, response_format)
        kwargs: dict[str, Any] = {"model": settings.llm_model, "messages": messages, "temperature": 0}
        if response_format:
            kwargs["response_format"] = response_format
        with mapped_errors(settings):
            reply = (llm_client or client(settings)).chat.completions.create(**kwargs)
            telemetry.llm_usage(traced, settings.llm_model, getattr(reply, "usage", None))
            return reply.choices[0].message.content or ""


def prepare(settings) -> float:
    """Load a local model now (once per process), so a missing file or package fails before any
    retrieval; returns the milliseconds it took here (0 when loaded before, or for an endpoint)."""
    if settings.local_model_path is None:
        return 0.0
    from . import local_llm

    before = local_llm.loaded(settings)
    loaded = local_llm.model(settings)
    return 0.0 if before is loaded else loaded.load_ms


def describe(settings) -> dict:
    """What ran the model, for `ask --json` (`llm`): the backend and, for a local model, the device."""
    if settings.local_model_path is None:
        return {"backend": "openai-compatible", "device": None, "gpu_layers": None, "device_reason": None}
    from . import local_llm

    loaded = local_llm.loaded(settings)
    if loaded is None:
        return {"backend": "llama.cpp", "device": None, "gpu_layers": None, "device_reason": "not loaded"}
    return loaded.describe()


def map_ordered(func: Callable[[T], R], items: Iterable[T], concurrency: int) -> Iterator[R]:
    """`func` over `items`, up to `concurrency` calls in flight, results yielded in the items' order.

    The caller consumes (and writes) in order while later requests are under way; at most
    `4 * concurrency` results wait ahead of it. An error is raised where its item comes, and
    requests not yet started are dropped. With `concurrency` 1 it is a plain loop in this thread."""
    if concurrency <= 1:
        yield from map(func, items)
        return
    from concurrent.futures import Future, ThreadPoolExecutor

    pool = ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix="graphrag-llm")
    pending: deque[Future] = deque()
    try:
        for item in items:
            pending.append(pool.submit(func, item))
            while len(pending) > 4 * concurrency:
                yield pending.popleft().result()
        while pending:
            yield pending.popleft().result()
    finally:
        pool.shutdown(wait=False, cancel_futures=True)
