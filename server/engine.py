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
from graphrag_cypher.retrieval.routes import ROUTES
from graphrag_cypher.retrieval.shown import answer_asks, draw_params

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
    "upload_id",
    "Uploads",
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

    def embed_query(self, text):
        # through embed: the model's own embed_query would pass by the lock
        return self.embed([text])[0]

    def __getattr__(self, name):
        return getattr(self._embedder, name)


def ask(graph, embedder, settings, question: str, options: AskOptions, history=(), on_token=None) -> dict:
    """The answer as `graphrag ask --json` prints it; the configured web search is the
    fallback, as for `graphrag ask`, and GRAPHRAG_RERANKER the reranker of `options.rerank`."""
    from .ask_params import reranker

    return qa.ask(
        graph,
        embedder,
        settings,
        question,
        options,
        history=history,
        on_token=on_token,
        reranker=reranker(options),
        web=web_fallback(),
    ).to_dict()


_web: dict = {}
_web_lock = threading.Lock()


def web_fallback():
    """The web-search fallback GRAPHRAG_WEB_SEARCH configures (None: off), made once per
    configuration; a configuration that cannot work is a one-line GraphragError."""
    import os

    from graphrag_cypher.retrieval.web import ENV_NAMES, WebConfig, WebFallback

    key = tuple(os.environ.get(name) for name in ENV_NAMES)
    with _web_lock:  # request threads: one fallback per configuration, not one each
        if key not in _web:
            config = WebConfig.from_env()
            if config.provider == "off":
                _web[key] = None
            else:
                from functools import partial

                from graphrag_cypher.loaders import isolated
                from graphrag_cypher.loaders.web import PoliteClient

                _web[key] = WebFallback(config, partial(PoliteClient, parse=isolated.page_document))
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
    from graphrag_cypher.principal import current

    state = graph.read("communities/state")
    rows = graph.read("communities/list", level=level, corpus=corpus, limit=max(1, min(int(limit), MAX_COMMUNITIES)))
    found = _community_state(state[0]) if state else None
    if found is not None and current().corpora is not None:
        found["counts"] = None  # how many communities the whole graph has is not a scoped key's to know
    return {"state": found, "communities": rows}


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
    and what its route adds (each route's `draw`: a relation answer's paths, a structured one's rows).
    Entities below the confidence cut are not drawn unless the question asks for them (retrieval/shown.py)."""
    shown = draw_params(graph.settings, result.get("question") or "", answer_asks(result))
    row = graph.read(
        "documents/evidence_graph", chunkIds=[e["chunk_id"] for e in result.get("evidence", [])], limit=limit, **shown
    )
    nodes = {n["id"]: n for n in (row[0]["nodes"] if row else [])}
    edges = {(e["source"], e["type"], e["target"]): e for e in (row[0]["edges"] if row else [])}
    for route in ROUTES:  # a relation answer's paths, a structured answer's rows
        route.draw(result, nodes, edges, limit)
    return {
        "nodes": list(nodes.values()),
        "edges": [e for e in edges.values() if e["source"] in nodes and e["target"] in nodes],
    }


def neighbourhood(graph, node_id: str, limit: int = 25) -> dict | None:
    rows = graph.read(
        "documents/neighbourhood",
        id=node_id,
        limit=max(1, min(int(limit), MAX_GRAPH_NODES)),
        minConfidence=graph.settings.entity_draw_min_confidence,
    )
    return rows[0] if rows else None


# --- learning: the `learn` command's load, as a function ----------------------------------


def load_options(loader: str, source_root: str, corpus: str | None, topics: Iterable[str] = ()):
    """The LoadOptions `learn` loads with (topics stripped, blank ones dropped)."""
    from graphrag_cypher.store.ingest import LoadOptions

    return LoadOptions(
        loader=loader,
        source_root=source_root,
        corpus=corpus,
        topics=tuple(t.strip() for t in topics if t and t.strip()),
    )


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

    options = load_options(loader, source_root, corpus, topics)
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
    refused, one line each, unless GRAPHRAG_CRAWL_ALLOW_LOCAL=1 (`serve --crawl-allow-local`).
    Each page is parsed in a worker process, within the parse budget's time and memory."""
    from graphrag_cypher.loaders.isolated import page_document
    from graphrag_cypher.loaders.web import crawl_allows_local, fetch_pages

    return fetch_pages(
        urls,
        crawl=crawl,
        max_pages=max_pages,
        timeout=timeout,
        crawl_timeout=crawl_timeout,
        delay=delay,
        allow_local=crawl_allows_local(),
        parse=page_document,
    )


def path_items(paths: list[str]):
    """The files under `paths`, each parsed in a worker process (`loaders.isolated`)."""
    from graphrag_cypher.loaders.files import parse_folder
    from graphrag_cypher.loaders.isolated import parse_file

    for path in paths:
        yield from parse_folder(path, parse=parse_file)


UPLOAD_SOURCE = "upload"


def upload_id(name: str, corpus: str | None) -> str:
    """An uploaded file's document id: `file:upload:<name>` in the default corpus (the id every
    upload had before ids held their corpus), `file:upload:<corpus>/<name>` in another. A file
    name holds no "/", so the id says which corpus and which name it is."""
    return f"file:{UPLOAD_SOURCE}:{corpus}/{name}" if corpus else f"file:{UPLOAD_SOURCE}:{name}"


class Uploads:
    """Which document each file of an upload job writes, and whether it may: a file whose name is
    stored already in the corpus replaces that document only when `replace` is asked; otherwise it
    is one error line (the other files load). A file whose content is what is stored replaces
    nothing: it counts as unchanged, as before.

    An upload from before ids held the corpus (`file:upload:<name>` in a named corpus) is found
    by that old id and keeps it. In the default corpus such an old id of another corpus is
    refused with what to do: forget it, then upload it again into its corpus (the new id)."""

    def __init__(self, graph, names: list[str], corpus: str | None, replace: bool = False, topics: Iterable[str] = ()):
        self.graph, self.names, self.corpus, self.replace = graph, list(names), corpus or None, replace
        self.options = load_options("upload", UPLOAD_SOURCE, self.corpus, topics)
        self._stored: dict[str, dict] = {}  # file name -> its stored document (id, corpus, contentHash)
        self._refused: dict[str, str] = {}
        self._replacing: dict[str, tuple[str, str]] = {}  # file name -> (id, the hash it is written with)

    def resolve(self) -> dict[str, str]:
        """Each file's document id, read from the graph when the job runs (a job before it may
        have written one)."""
        wanted = {upload_id(n, self.corpus) for n in self.names} | {upload_id(n, None) for n in self.names}
        rows = {r["id"]: r for r in self.graph.read("documents/upload_targets", ids=sorted(wanted))}
        ids = {}
        for name in self.names:
            own, old = upload_id(name, self.corpus), upload_id(name, None)
            ids[name] = own
            if self.corpus is None and own in rows and rows[own]["corpus"]:
                self._refused[name] = (
                    f"the id {own} is an earlier upload into corpus {rows[own]['corpus']!r} (from before upload "
                    f"ids held their corpus): forget it (DELETE /documents/{own}) and upload it again into its corpus"
                )
            elif own in rows:
                self._stored[name] = rows[own]
            elif self.corpus and old in rows and rows[old]["corpus"] == self.corpus:
                ids[name] = old
                self._stored[name] = rows[old]
        return ids

    def checked(self, items: Iterable, ids: dict[str, str]):
        """`items` (upload_items' output for `ids`) with each file that may not be written as one
        ItemError; the files that will replace a stored document are noted (`replaced`)."""
        from graphrag_cypher.model import ItemError
        from graphrag_cypher.store.ingest import stored_hash

        names = {ident: name for name, ident in ids.items()}
        where = f"corpus {self.corpus!r}" if self.corpus else "the default corpus"
        for item in items:
            name = None if isinstance(item, ItemError) else names.get(item.id)
            if name is None:  # an ItemError is one line already
                yield item
                continue
            if name in self._refused:
                yield ItemError(name, self._refused[name])
                continue
            stored = self._stored.get(name)
            if stored is not None:
                digest = stored_hash(item, self.options)
                if digest != stored["contentHash"]:
                    if not self.replace:
                        yield ItemError(name, f"exists in {where}: send replace=true to replace it")
                        continue
                    self._replacing[name] = (stored["id"], digest)
            yield item

    def replaced(self) -> list[str]:
        """The files that replaced a stored document, read back from the graph: one the job did
        not write (it failed, or the job was cancelled first) replaced nothing."""
        if not self._replacing:
            return []
        ids = sorted(ident for ident, _ in self._replacing.values())
        now = {r["id"]: r["contentHash"] for r in self.graph.read("documents/upload_targets", ids=ids)}
        return [name for name, (ident, digest) in self._replacing.items() if now.get(ident) == digest]


def upload_items(folder: Path, names: list[str], ids: dict[str, str] | None = None):
    """Uploaded files (saved in `folder`) through the file loader, each with its id from `ids`
    (`Uploads.resolve`; without it `file:upload:<name>`); a type the loader does not read is one
    error line."""
    from graphrag_cypher.loaders.files import DEFAULT_EXTENSIONS
    from graphrag_cypher.loaders.isolated import parse_file  # in a worker process: see loaders/isolated.py
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
        if isinstance(doc, ItemError):
            yield doc
            continue
        ident = (ids or {}).get(name, doc.id)
        yield replace(doc, id=ident, source=f"{UPLOAD_SOURCE}:{name}", uri=None)


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
