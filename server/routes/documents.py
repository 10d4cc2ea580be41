"""Documents: list, read and forget them; learn new ones from uploads (``POST /documents``) or
from URLs, sites and allowed server-side folders (``POST /crawl``), each a job.

An uploaded file's document is ``file:upload:<name>`` in the default corpus and
``file:upload:<corpus>/<name>`` in another (engine.upload_id): the same name in two corpora is two
documents. A name the corpus holds already is replaced only with the form field ``replace=true``
(otherwise that file is one error line and the others load); the job's summary lists the files
that replaced a document under ``replaced``."""

from __future__ import annotations

import re
from pathlib import Path

from fastapi import APIRouter, File, Form, Query, UploadFile
from pydantic import BaseModel, Field

from graphrag_cypher.audit import audited
from graphrag_cypher.store import documents

from .. import engine
from ..common import ApiError, State, allowed_path
from ..guard import route_corpus
from ..jobs import QueueFull

MAX_SKIP = 1_000_000_000  # GET /documents?skip=: Neo4j's SKIP takes a 64-bit integer
_UPLOAD_NAME = re.compile(r"^[\w][\w .()+-]{0,199}$")


class CrawlRequest(BaseModel):
    request: str | None = Field(
        default=None, max_length=4000, description='The chat syntax: "topic | url: URL | path: DIR"'
    )
    url: str | None = Field(default=None, max_length=2000)
    urls: list[str] = Field(default_factory=list, max_length=50)
    path: str | None = Field(default=None, max_length=1000)
    crawl: bool = True
    max_pages: int = Field(default=30, ge=1, le=500)
    delay: float = Field(default=0.5, ge=0, le=10)
    corpus: str | None = Field(default=None, max_length=200)
    topics: list[str] = Field(default_factory=list, max_length=20)
    per_topic: int = Field(default=3, ge=1, le=20, description="Pages learned per topic when only topics are given")


def router(state: State) -> APIRouter:
    routes = APIRouter(tags=["documents"])

    @routes.get("/documents", summary="Documents in the graph, newest first")
    def list_documents(
        corpus: str | None = Query(default=None, max_length=200),
        skip: int = Query(default=0, ge=0, le=MAX_SKIP),
        limit: int = Query(default=100, ge=1, le=500),
    ):
        return {"documents": documents.list_documents(state.graph, corpus, skip, limit)}

    @routes.get("/documents/{document_id:path}", summary="One document and its first chunks")
    def get_document(document_id: str):
        return documents.get_document(state.graph, document_id)

    @routes.delete("/documents/{document_id:path}", summary="Forget a document completely (needs the key)")
    def forget(document_id: str):
        return engine.forget(state.graph, document_id)

    @routes.post("/documents", status_code=202, summary="Upload files to learn (a job; needs the key)")
    async def upload(
        files: list[UploadFile] = File(...),
        corpus: str | None = Form(default=None, max_length=200),
        topics: str | None = Form(default=None, max_length=1000),
        replace: bool = Form(
            default=False,
            description="Replace a document of the same file name in the corpus (otherwise: an error line)",
        ),
    ):
        state.check_room()
        corpus = route_corpus(corpus, write=True)  # a scoped key's own corpus (checked, or its only one)
        folder = engine.upload_folder()
        names: list[str] = []
        try:
            for upload in files:
                name = Path(upload.filename or "").name
                if not _UPLOAD_NAME.match(name) or name in names:
                    raise ApiError(
                        422,
                        f"bad file name {upload.filename!r}: letters, digits, spaces and .()+- only, each name once",
                    )
                data = await upload.read()
                (Path(folder.name) / name).write_bytes(data)
                names.append(name)
        except BaseException:
            folder.cleanup()
            raise

        def work(progress, error, should_stop):
            uploads = engine.Uploads(state.graph, names, corpus, replace=replace, topics=(topics or "").split(","))
            ids = uploads.resolve()
            summary = state.learn(
                uploads.checked(engine.upload_items(Path(folder.name), names, ids), ids),
                progress,
                error,
                should_stop,
                loader="upload",
                source_root=engine.UPLOAD_SOURCE,
                corpus=corpus,
                topics=(topics or "").split(","),
            )
            summary["replaced"] = uploads.replaced()
            return summary

        try:
            return state.jobs.submit("upload", ", ".join(names), work, cleanup=folder.cleanup, total=len(names))
        except QueueFull as exc:
            folder.cleanup()
            raise ApiError(429, str(exc)) from None

    @routes.post(
        "/crawl", status_code=202, summary="Learn a URL, a site or an allowed server-side folder (a job; needs the key)"
    )
    def crawl(body: CrawlRequest):
        urls, paths, topics = list(body.urls) + ([body.url] if body.url else []), [], list(body.topics)
        if body.path:
            paths.append(body.path)
        if body.request:
            parsed = engine.parse_learn(body.request)
            urls, paths, topics = urls + parsed.urls, paths + parsed.paths, topics + parsed.topics
        if not urls and not paths and topics:
            return _learn_topics(topics, body)
        if not urls and not paths:
            raise ApiError(422, 'nothing to learn from: give url, urls, path or request ("topic | url: URL")')
        bad = [u for u in urls if not u.lower().startswith(("http://", "https://"))]
        if bad:
            raise ApiError(422, f"not an http(s) URL: {bad[0]!r}")
        resolved = [allowed_path(p, state.options.allowed_paths) for p in paths]
        state.check_room()

        def work(progress, error, should_stop):
            def items():
                yield from engine.path_items([str(p) for p in resolved])
                if urls:
                    yield from engine.crawl_items(urls, crawl=body.crawl, max_pages=body.max_pages, delay=body.delay)

            root = " ".join([str(p) for p in resolved] + sorted(urls))
            with audited(state.graph, "crawl", body.corpus):  # the learn it runs adds its counts
                return state.learn(
                    items(),
                    progress,
                    error,
                    should_stop,
                    loader="learn",
                    source_root=root,
                    corpus=body.corpus,
                    topics=topics,
                )

        try:
            return state.jobs.submit("crawl", " ".join([*map(str, resolved), *urls]), work)
        except QueueFull as exc:
            raise ApiError(429, str(exc)) from None

    def _learn_topics(topics: list[str], body: CrawlRequest):
        """Topics alone: learned from the configured web search (a job), as `graphrag learn "topic"`."""
        missing = engine.topics_need_web()
        if missing:
            raise ApiError(422, missing)
        state.check_room()

        def work(progress, error, should_stop):
            with audited(state.graph, "crawl", body.corpus):
                return engine.learn_topics(
                    state.graph,
                    state.document_embedder(),
                    topics,
                    per_topic=body.per_topic,
                    corpus=body.corpus,
                    on_progress=progress,
                    on_error=error,
                    should_stop=should_stop,
                    settings=state.settings,
                )

        try:
            return state.jobs.submit("learn", ", ".join(topics), work)
        except QueueFull as exc:
            raise ApiError(429, str(exc)) from None

    return routes
