"""What the server asks of the rest of graphrag, in one place.

Every answer, rewrite and load the server makes goes through these functions, on the same
core objects the CLI uses (`qa.ask`, `chat.Conversation`, the ingest `Loader`), so the
two faces cannot disagree. When those modules move, only the imports here change.
"""

from __future__ import annotations

import tempfile
import threading
from collections.abc import Callable, Iterable
from dataclasses import replace
from pathlib import Path

from graphrag_cypher.retrieval import qa
from graphrag_cypher.retrieval.chat import Conversation
from graphrag_cypher.retrieval.modes import ANSWER_MODES, DEFAULT_MODE, MODES
from graphrag_cypher.retrieval.options import AskOptions

__all__ = [
    "DEFAULT_MODE",
    "MODES",
    "ANSWER_MODES",
    "LockedEmbedder",
    "ask",
    "web_fallback",
    "standalone",
    "evidence_graph",
    "neighbourhood",
    "communities",
    "community",
    "label",
    "learn",
    "learn_topics",
    "topics_need_web",
    "crawl_items",
    "path_items",
    "upload_items",
]

MAX_GRAPH_NODES = 60


class LockedEmbedder:
    """One embedding model shared by request threads: one call at a time."""

    def __init__(self, embedder):
        self._embedder = embedder
        self._lock = threading.Lock()

    def embed(self, texts):
        with self._lock:
            return self._embedder.embed(texts)

    def __getattr__(self, name):
        return getattr(self._embedder, name)


def ask(graph, embedder, settings, question: str, options: AskOptions, history=(), on_token=None) -> dict:
    """The answer as `graphrag ask --json` prints it; the configured web search is the
    fallback, as for `graphrag ask`."""
    return qa.ask(
        graph, embedder, settings, question, options, history=history, on_token=on_token, web=web_fallback()
    ).to_dict()


_web: dict = {}


def web_fallback():
    """The web-search fallback GRAPHRAG_WEB_SEARCH configures (None: off), made once per
    configuration; a configuration that cannot work is a one-line GraphragError."""
    import os

    from graphrag_cypher.retrieval.websearch import ENV_NAMES, WebConfig, WebFallback

    key = tuple(os.environ.get(name) for name in ENV_NAMES)
    if key not in _web:
        config = WebConfig.from_env()
        if config.provider == "off":
            _web[key] = None
        else:
            from graphrag_cypher.loaders.web import PoliteClient

            _web[key] = WebFallback(config, PoliteClient)
    return _web[key]


def standalone(settings, history: list[dict], said: str, use_llm: bool = True) -> str:
    """A follow-up rewritten into a standalone question, as `graphrag chat` does. `history`
    holds earlier turns: {question, answer, entities: [names], time}."""
    conversation = Conversation(settings, use_llm=use_llm)
    keep = conversation.turns.maxlen or len(history)  # the turns a conversation holds
    for turn in history[-keep:]:
        conversation.add_turn(
            turn.get("question") or "",
            turn.get("question") or "",
            turn.get("answer") or "",
            [name for name in turn.get("entities") or [] if isinstance(name, str)],
            turn.get("time") if isinstance(turn.get("time"), str) else None,
        )
    return conversation.standalone(said)


def history_messages(history: list[dict]) -> list[dict]:
    """Earlier turns as chat messages for the LLM prompt (what `Conversation.messages` gives)."""
    out = []
    for turn in history[-8:]:
        out += [
            {"role": "user", "content": turn.get("question") or ""},
            {"role": "assistant", "content": turn.get("answer") or ""},
        ]
    return out


MAX_COMMUNITIES = 200


def communities(graph, level: int | None = 0, corpus: str | None = None, limit: int = 50) -> dict:
    """The communities `graphrag communities build` wrote (cypher/queries/communities/list.cypher),
    the largest of each level first, and the state of the last build (None: none ran)."""
    state = graph.read("communities/state")
    rows = graph.read("communities/list", level=level, corpus=corpus, limit=max(1, min(int(limit), MAX_COMMUNITIES)))
    return {"state": _community_state(state[0]) if state else None, "communities": rows}


def community(graph, community_id: str) -> dict | None:
    """One community's report (extractive, and the LLM's if one was written), its parent and
    children; None for an unknown id."""
    rows = graph.read("communities/get", id=community_id)
    if not rows:
        return None
    row = rows[0]
    found = {k: v for k, v in row["community"].items() if k != "embedding"}
    return dict(found, parent=row["parent"], children=row["children"])


def _community_state(row: dict) -> dict:
    return {key: row.get(key) for key in ("builtAt", "levels", "counts", "algorithm", "ms")}


def evidence_graph(graph, result: dict, limit: int = MAX_GRAPH_NODES) -> dict:
    """The evidence subgraph of an answer: chunks, documents, mentioned entities, relations,
    and the nodes and steps of a relation answer's paths."""
    row = graph.read(
        "documents/evidence_graph", chunkIds=[e["chunk_id"] for e in result.get("evidence", [])], limit=limit
    )
    nodes = {n["id"]: n for n in (row[0]["nodes"] if row else [])}
    edges = {(e["source"], e["type"], e["target"]): e for e in (row[0]["edges"] if row else [])}
    for path in result.get("paths") or []:
        for node in path.get("nodes", []):
            nodes.setdefault(
                node["id"],
                {"id": node["id"], "label": node.get("type") or "Entity", "name": node.get("name") or node["id"]},
            )
        for rel in path.get("relationships", []):
            edges.setdefault(
                (rel["start"], rel["type"], rel["end"]),
                {"source": rel["start"], "target": rel["end"], "type": rel["type"]},
            )
    _structured_graph(result, nodes, edges, limit)
    return {
        "nodes": list(nodes.values()),
        "edges": [e for e in edges.values() if e["source"] in nodes and e["target"] in nodes],
    }


def _structured_graph(result: dict, nodes: dict, edges: dict, limit: int) -> None:
    """A structured lookup's entity and its rows as nodes (at most `limit` in all), and for one
    hop the relation joining each row to the entity: an answer read from loaded records has
    no chunks to draw, and its rows are its evidence."""
    plan = result.get("structured") or {}
    entity, hops = plan.get("entity"), plan.get("hops") or []
    if plan.get("family") not in ("lookup", "list", "count") or not entity:
        return

    def node(item: dict) -> None:
        if item["id"] not in nodes and len(nodes) < limit:
            nodes[item["id"]] = {"id": item["id"], "label": item.get("type") or "Entity", "name": item["name"]}

    node(entity)
    for row in result.get("rows") or []:
        node(row)
        if len(hops) != 1 or not row.get("relation") or row["id"] not in nodes:
            continue
        # the entity is the source of an "out" hop; an edge of the inverse type reads the other way
        out = (hops[0]["direction"] == "out") == (row["relation"] == hops[0]["relation"])
        source, target = (entity["id"], row["id"]) if out else (row["id"], entity["id"])
        edges.setdefault(
            (source, row["relation"], target), {"source": source, "target": target, "type": row["relation"]}
        )


def neighbourhood(graph, node_id: str, limit: int = 25) -> dict | None:
    rows = graph.read("documents/neighbourhood", id=node_id, limit=max(1, min(int(limit), MAX_GRAPH_NODES)))
    return rows[0] if rows else None


# --- learning: the `learn` command's load, as a function ----------------------------------


def learn(
    graph,
    embedder,
    items: Iterable,
    *,
    loader: str,
    source_root: str,
    corpus: str | None = None,
    topics: Iterable[str] = (),
    on_progress: Callable[[dict], None] = lambda stats: None,
    on_error: Callable[[str], None] = lambda line: None,
    should_stop: Callable[[], bool] = lambda: False,
    settings=None,
) -> dict:
    """Load `items` (ParsedDocument | ItemError) as `graphrag learn` does: incremental, bad
    items reported one line each, shared phrases re-linked when anything changed. Returns
    the summary `learn --json` prints (with `"cancelled": true` when `should_stop` ended it
    early: what it wrote is whole documents). `on_progress` gets `LoadStats.progress()`."""
    from graphrag_cypher.kg.auto import extractor
    from graphrag_cypher.linkers.phrases import link_phrases
    from graphrag_cypher.loaders.learn import learn_items
    from graphrag_cypher.store.ingest import LoadOptions

    options = LoadOptions(
        loader=loader,
        source_root=source_root,
        corpus=corpus,
        topics=tuple(t.strip() for t in topics if t and t.strip()),
    )
    learned = learn_items(
        graph,
        embedder,
        items,
        options,
        relink=link_phrases,
        on_error=on_error,
        on_progress=lambda stats: on_progress(stats.progress()),
        should_stop=should_stop,
        extract=extractor(settings) if settings is not None else None,
    )
    return learned.to_dict()


def learn_topics(
    graph,
    embedder,
    topics: Iterable[str],
    *,
    per_topic: int = 3,
    corpus: str | None = None,
    on_progress: Callable[[dict], None] = lambda stats: None,
    on_error: Callable[[str], None] = lambda line: None,
    should_stop: Callable[[], bool] = lambda: False,
    settings=None,
) -> dict:
    """Learn topics alone from the configured web search, as `graphrag learn "topic, topic"`
    does (loaders.learn.learn_topics): each topic's first `per_topic` pages as :WebPage
    documents with the topic. The summary has `web`: what each topic's search gave."""
    from graphrag_cypher.kg.auto import extractor
    from graphrag_cypher.linkers.phrases import link_phrases
    from graphrag_cypher.loaders.learn import learn_topics as learn_from_web
    from graphrag_cypher.store.ingest import LoadOptions

    learned = learn_from_web(
        graph,
        embedder,
        topics,
        web_fallback(),
        per_topic,
        LoadOptions(loader="learn", source_root="web-search", corpus=corpus),
        link_phrases,
        on_error=on_error,
        on_progress=lambda stats: on_progress(stats.progress()),
        should_stop=should_stop,
        extract=extractor(settings) if settings is not None else None,
    )
    return learned.to_dict()


def topics_need_web() -> str | None:
    """Why topics alone cannot be learned here (no web search configured), or None."""
    from graphrag_cypher.loaders.learn import TOPICS_NEED_WEB

    return TOPICS_NEED_WEB if web_fallback() is None else None


def forget(graph, document_id: str) -> dict:
    """Forget a document completely (`graphrag forget`, DELETE /documents/{id}) and re-link what
    its chunks shared: `phrases` counts the phrases that no longer join two chunks."""
    from graphrag_cypher.linkers.phrases import link_phrases
    from graphrag_cypher.store.documents import forget as forget_document

    result = forget_document(graph, document_id)
    result["phrases"] = link_phrases(graph).phrases_removed
    return result


def parse_learn(text: str):
    """The chat's `learn:` syntax: topics, paths and URLs."""
    from graphrag_cypher.loaders.learn import parse_learn as parse

    return parse(text)


def crawl_items(
    urls: list[str],
    crawl: bool = True,
    max_pages: int = 30,
    timeout: float = 30,
    crawl_timeout: float = 600,
    delay: float = 0.5,
):
    """Pages for POST /crawl and MCP `learn`: loopback, private and link-local addresses are
    refused, one line each, unless GRAPHRAG_CRAWL_ALLOW_LOCAL=1 (`serve --crawl-allow-local`)."""
    from graphrag_cypher.loaders.web import crawl_allows_local, fetch_pages

    return fetch_pages(
        urls,
        crawl=crawl,
        max_pages=max_pages,
        timeout=timeout,
        crawl_timeout=crawl_timeout,
        delay=delay,
        allow_local=crawl_allows_local(),
    )


def path_items(paths: list[str]):
    from graphrag_cypher.loaders.files import parse_folder

    for path in paths:
        yield from parse_folder(path)


UPLOAD_SOURCE = "upload"


def upload_items(folder: Path, names: list[str]):
    """Uploaded files (saved in `folder`) through the file loader: ids `file:upload:<name>`, so
    uploading the same file again finds its document; a type the loader does not read is one
    error line."""
    from graphrag_cypher.loaders.files import DEFAULT_EXTENSIONS, parse_file
    from graphrag_cypher.model import ItemError

    for name in names:
        if Path(name).suffix.lower() not in DEFAULT_EXTENSIONS:
            yield ItemError(
                name,
                f"unsupported file type {Path(name).suffix or '(none)'!r}: send text, Markdown, "
                "HTML, PDF, code, JSON or CSV",
            )
            continue
        doc = parse_file(folder / name, root=folder, source=UPLOAD_SOURCE)
        # the temporary folder is no source: neither its path nor its URI is stored
        yield doc if isinstance(doc, ItemError) else replace(doc, source=f"{UPLOAD_SOURCE}:{name}", uri=None)


UPLOAD_PREFIX = "graphrag-upload-"
STALE_UNOWNED = 24 * 3600  # seconds after which an upload folder with no server's pid in its name goes


def upload_folder() -> tempfile.TemporaryDirectory:
    """A job's files until it ends; its name holds this server's pid, so a later start can
    tell the folder of a server that was killed from one in use."""
    import os

    return tempfile.TemporaryDirectory(prefix=f"{UPLOAD_PREFIX}{os.getpid()}-")


def clean_stale_uploads() -> list[str]:
    """Remove the upload folders servers that are gone left behind (a `kill -9` mid-job): ours,
    named with a pid no process has. Folders of live servers, of other users, and names this
    server did not make are kept (an old-style one once it is a day old). Returns what went."""
    import os
    import re
    import shutil
    import time

    removed: list[str] = []
    root = Path(tempfile.gettempdir())
    try:
        entries = list(root.glob(UPLOAD_PREFIX + "*"))
    except OSError:
        return removed
    for folder in entries:
        try:
            info = folder.lstat()
            if not folder.is_dir() or folder.is_symlink() or info.st_uid != os.getuid():
                continue
            pid = re.match(rf"{UPLOAD_PREFIX}(\d+)-", folder.name)
            if pid:
                if int(pid.group(1)) == os.getpid() or _alive(int(pid.group(1))):
                    continue
            elif not re.fullmatch(rf"{UPLOAD_PREFIX}[\w]{{8}}", folder.name) or (
                time.time() - info.st_mtime < STALE_UNOWNED
            ):
                continue  # an old server's folder (no pid): only once it is surely unused
            shutil.rmtree(folder, ignore_errors=True)
            removed.append(str(folder))
        except OSError:
            continue
    return removed


def _alive(pid: int) -> bool:
    import os

    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's process
    return True


def label(text: str | None) -> str:
    """A title as it may be shown next to an answer: one line, no brackets, no control characters."""
    from graphrag_cypher.retrieval.answer import neutral

    return neutral(text)
