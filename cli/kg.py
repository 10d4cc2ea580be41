"""`graphrag extract` and `graphrag resolve`: text and records into typed entities and relations."""

from __future__ import annotations

import click

from .context import with_graph
from .output import info, print_json, print_kg_summary, print_ner_summary
from .params import dry_run_option, json_option


@click.command("extract")
@click.option(
    "--schema",
    "schema_name",
    default=None,
    help="Built-in schema (folktale, got, ancient-world, generic) or a path to a schema YAML file. "
    "Default: folktale for --extractor llm, got for infobox, generic for ner.",
)
@click.option(
    "--extractor",
    type=click.Choice(["infobox", "llm", "ner"]),
    default="infobox",
    show_default=True,
    help="infobox: heuristics over loaded wiki pages; llm: an LLM reads each document; "
    "ner: spaCy's named-entity recogniser reads the chunks of any documents (no LLM).",
)
@click.option("--corpus", default=None, help="Only documents of this corpus.")
@click.option(
    "--model",
    default=None,
    help="ner: the spaCy pipeline (default GRAPHRAG_NER_MODEL, else en_core_web_sm).",
)
@click.option(
    "--kind",
    "kinds",
    multiple=True,
    help="Documents of this kind (story, file, pdf, web, wiki, passage, article, feed...); repeatable; "
    "`all`: every kind but entity documents. Default for llm: story (with --document: any); for ner: all.",
)
@click.option("--document", "document_ids", multiple=True, help="llm, ner: only the document with this id; repeatable.")
@click.option(
    "--resume", is_flag=True, help="llm: skip documents already extracted with the same model, schema and text."
)
@click.option("--limit", type=int, default=None, help="llm: at most this many documents in this run.")
@click.option(
    "--max-chars",
    type=int,
    default=12000,
    show_default=True,
    help="llm: documents longer than this are sent in runs of chunks, each under it.",
)
@click.option(
    "--concurrency",
    type=click.IntRange(1, 64),
    envvar="GRAPHRAG_EXTRACT_CONCURRENCY",
    default=4,
    show_default=True,
    help="LLM requests in flight at once (llm and --validate); 1: one after the other. "
    "Env: GRAPHRAG_EXTRACT_CONCURRENCY.",
)
@click.option(
    "--no-cache",
    is_flag=True,
    help="llm: ask again for text already answered (replies are cached in GRAPHRAG_CACHE_DIR, "
    "default .graphrag/cache).",
)
@click.option(
    "--validate",
    is_flag=True,
    help="infobox: ask the LLM to confirm nodes with low confidence or close type scores, and the "
    "names infobox values give (Low), --batch-size at a time; the types it gives decide which relations "
    "are built, in this run and later ones, and the node keeps its confidence and who decided it.",
)
@click.option(
    "--batch-size",
    type=click.IntRange(1, 500),
    default=20,
    show_default=True,
    help="--validate: doubtful nodes per LLM request (1-500).",
)
@json_option
@with_graph(config=True)
def extract(
    graph,
    config,
    schema_name,
    extractor,
    corpus,
    kinds,
    document_ids,
    model,
    resume,
    limit,
    max_chars,
    concurrency,
    no_cache,
    validate,
    batch_size,
    as_json,
) -> None:
    """Build typed entities and relations from loaded documents, checked against a schema.

    The infobox extractor types each wiki page with an infobox by scoring its template,
    fields, title and categories (type_scores, confidence, reason are kept on the node)
    and maps fields to relations; relations the schema forbids are skipped and counted.
    The llm extractor sends each document (stories by default; --kind, --corpus and
    --document choose others), or runs of chunks of a long one, to the configured LLM
    (OPENAI_BASE_URL, GRAPHRAG_LLM_MODEL), --concurrency requests at a time, and keeps what
    the schema allows. Replies are cached on disk, so running it again asks nothing twice;
    progress is checkpointed on each document, so an interrupted run continues with --resume.
    The ner extractor runs spaCy's recogniser and parser (no LLM) over the chunks of any
    documents (--corpus, --kind, --document; default all), reads what each name means with
    graphrag's rules (titles, citations, subjects of verbs, places after prepositions, one type
    per name in a document) and maps it by the schema's `ner:` section (PERSON -> Person,
    GPE/LOC/FAC -> Place, ORG -> Organization, ...); each chunk MENTIONS the names it holds and
    they point back (FROM_CHUNK). It reads only chunks it has not read in their current text.

    \b
    Example:
      graphrag load mediawiki wiki.xml --no-embed
      graphrag extract --schema got --extractor infobox
      graphrag extract --schema got --validate --batch-size 50
      graphrag extract --schema folktale --extractor llm --resume
      graphrag load files ./notes --corpus notes --no-embed
      graphrag extract --extractor llm --schema generic --corpus notes --kind all --concurrency 8
      graphrag extract --extractor ner --corpus notes
    """
    from graphrag_cypher.schema import load_schema

    from .progress import RequestProgress

    schema = load_schema(schema_name or {"llm": "folktale", "ner": "generic"}.get(extractor, "got"))
    if extractor == "ner":
        from graphrag_cypher.kg import ner

        from .progress import CountProgress

        selection = ner.Selection(
            corpus=corpus,
            kinds=None if not kinds or "all" in kinds else list(kinds),
            document_ids=list(document_ids) or None,
        )
        with CountProgress("extract ner: chunks", enabled=not as_json) as counting:
            result = ner.run(graph, schema, selection, model=model or config.ner_model, progress=counting.update)
        if as_json:
            print_json(result)
        else:
            print_ner_summary(result)
        return
    if extractor == "infobox":
        from graphrag_cypher.kg import infobox

        result = infobox.run(graph, schema, corpus=corpus)
        if validate:
            from graphrag_cypher.kg import validate as validation

            with RequestProgress("validate", enabled=not as_json) as progress:
                checked = validation.run(
                    graph,
                    config,
                    schema,
                    concurrency=concurrency,
                    on_progress=progress.requests,
                    batch_size=batch_size,
                )
            if checked["retyped"]:  # edges follow the validated types: build them again
                first, pruned = result["written"], result["pruned"]
                result = infobox.run(graph, schema, corpus=corpus)
                result["written"] = {key: n + first.get(key, 0) for key, n in result["written"].items()}
                result["pruned"] = {key: n + pruned.get(key, 0) for key, n in result["pruned"].items()}
            result["validation"] = checked
    else:
        from graphrag_cypher.kg import llm_extract

        if "all" in kinds:
            chosen = None
        else:
            chosen = tuple(kinds) or (None if document_ids else ("story",))
        llm_selection = llm_extract.Selection(corpus=corpus, kinds=chosen, ids=tuple(document_ids) or None)
        with RequestProgress("extract llm", enabled=not as_json) as progress:
            result = llm_extract.run(
                graph,
                config,
                schema,
                llm_selection,
                resume=resume,
                limit=limit,
                max_chars=max_chars,
                concurrency=concurrency,
                cache=None if no_cache else llm_extract.ReplyCache(llm_extract.cache_path()),
                on_progress=progress.requests,
                on_error=progress.error,
            )
    if as_json:
        print_json(result)
    else:
        print_kg_summary(result)
        if any((result.get("pruned") or {}).values()):
            p = result["pruned"]
            click.echo(
                f"removed: {p['edges']} edge(s) the infoboxes no longer give, {p['entities']} entities only they named"
            )
        if result.get("stories"):
            s = result["stories"]
            noun = "stories" if result["kinds"] == ["story"] else "documents"
            click.echo(f"{noun}: {s['extracted']} extracted, {s['skipped']} already done, {s['failed']} failed")
            click.echo(
                f"requests: {result['requests']} sent, {result['cacheHits']} answered from the cache, "
                f"{result['concurrency']} at a time"
            )
        if result.get("validation"):
            v = result["validation"]
            sent = ", ".join(f"{n} {_CANDIDATE_KINDS.get(k, k)}" for k, n in v["candidates"].items()) or "none"
            click.echo(
                f"validation: {v['checked']} checked ({sent}), {v['confirmed']} confirmed, {v['retyped']} retyped, "
                f"{v['unanswered']} unanswered; {v['requests']} request(s) of up to {v['batchSize']}"
            )
    if result.get("stories", {}).get("failed"):
        raise SystemExit(3)


_CANDIDATE_KINDS = {"infobox": "pages with infobox", "page": "pages without", "relation": "infobox values"}


@click.command("resolve")
@click.option("--schema", "schema_name", default=None, help="Only entities of this schema (default: all).")
@click.option(
    "--threshold",
    type=click.IntRange(50, 100),
    default=90,
    show_default=True,
    help="Fuzzy name similarity (0-100) above which two entities of one type are merged.",
)
@dry_run_option
@json_option
@with_graph
def resolve(graph, schema_name, threshold, dry_run, as_json) -> None:
    """Merge duplicate entities: same type, names that differ only by a typo or spelling,
    and short names of one longer name.

    Names are compared after folding case, accents and punctuation; pairs of the same type
    and scope scoring at least --threshold (rapidfuzz) are merged, the merged name kept as
    an alias. A name that is an alias of one entity of its type, or (for the schema's
    `resolve: prefix_types`, Character in got) the first words of one longer name ("Jon" of
    "Jon Snow"), merges into it when both share a corpus; with two candidates ("Jon Snow",
    "Jon Connington") nothing merges and the name is listed as ambiguous. With --dry-run the
    candidate pairs are listed and nothing changes; a second run finds nothing.

    \b
    Example:
      graphrag resolve --dry-run
      graphrag resolve --schema got --threshold 92 --json
    """
    from graphrag_cypher.kg import resolve as resolution

    result = resolution.run(graph, schema=schema_name, threshold=threshold, dry_run=dry_run)
    if as_json:
        print_json(result)
        return
    for pair in result["candidates"]:
        how = f"{pair['score']:5.1f}" if pair["rule"] == "fuzzy" else f"{pair['rule']:>6}"
        click.echo(f"{how}  {pair['type']}: {pair['keep']['name']!r} <- {pair['merge']['name']!r}")
    for item in result["ambiguous"]:
        could = " or ".join(repr(name) for name in item["candidates"])
        click.echo(f"ambiguous  {item['type']}: {item['name']!r} could be {could}: not merged")
    verb = "would merge" if dry_run else "merged"
    click.echo(
        f"{len(result['candidates'])} candidate pair(s), {result['shortForms']} of them short names; "
        f"{verb} {result['merged']}; {len(result['ambiguous'])} ambiguous short name(s) left"
    )


_TYPE_NAME = r"^[A-Za-z_][A-Za-z0-9_]*$"


def _types(ctx, param, values) -> tuple[str, ...]:
    import re

    for value in values:
        if not re.match(_TYPE_NAME, value):
            raise click.BadParameter(f"{value!r} is not a type name (letters, digits, underscores)")
    return tuple(values)


@click.command("entity-docs")
@click.option(
    "--corpus",
    default=None,
    help="Only entities described or mentioned by documents of this corpus; their documents join it.",
)
@click.option(
    "--type",
    "types",
    multiple=True,
    callback=_types,
    help="Only entities of this type (or label). Repeatable. Default: every type but Topic (document titles).",
)
@click.option(
    "--chunk-size", type=click.IntRange(100, 20000), default=1000, show_default=True, help="Chunk size in characters."
)
@click.option("--overlap", type=click.IntRange(0, 5000), default=100, show_default=True, help="Overlap between chunks.")
@click.option("--no-embed", is_flag=True, help="Store chunks without vectors (run `graphrag embed` later).")
@json_option
@with_graph(config=True)
def entity_docs(graph, config, corpus, types, chunk_size, overlap, no_embed, as_json) -> None:
    """One searchable text document per entity, from its properties and relations.

    Each entity gets a :Document:EntityDocument (id entity:<entity id>, kind entity) whose
    text gives its name, type, aliases, description, properties and its relations in both
    directions with the other entity's name and type. It is chunked and embedded like any
    document, and its chunks MENTION the entity with rule own-title, so vector search finds
    the entity and graph retrieval treats the chunk as being about it. Run it again after
    extract, resolve or any edit: unchanged entities are skipped, a changed entity (property
    or relation) regenerates only its own document, and documents of removed entities go.

    \b
    Example:
      graphrag extract --schema got
      graphrag entity-docs
      graphrag entity-docs --type Character --type House --corpus awoiaf --json
    """
    from graphrag_cypher.kg import documents
    from graphrag_cypher.store.ingest import LoadInterrupted

    from .load import print_interrupted
    from .progress import LoadProgress

    embedder = None
    if not no_embed:  # loaded only when some document changed: an unchanged run is quick
        from graphrag_cypher.embedder import LazyEmbedder

        embedder = LazyEmbedder(config)
    selection = documents.Selection(corpus=corpus, types=types)
    with LoadProgress("entity-docs", enabled=not as_json) as progress:
        try:
            stats = documents.run(
                graph,
                embedder,
                selection,
                chunk_size=chunk_size,
                overlap=overlap,
                on_error=progress.error,
                on_progress=progress.update,
            )
        except LoadInterrupted as exc:
            print_interrupted(exc, as_json)
            raise
    result = stats.to_dict()
    if as_json:
        print_json(result)
    else:
        d, c = result["documents"], result["chunks"]
        kinds = ", ".join(f"{n} {t}" for t, n in result["entitiesByType"].items()) or "none"
        click.echo(f"entities: {result['entities']} ({kinds})")
        click.echo(
            f"entity documents: {d['created']} created, {d['updated']} updated, {d['unchanged']} unchanged, "
            f"{d['failed']} failed, {d['pruned']} pruned; chunks: {c['created']} created, {c['deleted']} deleted, "
            f"{c['embedded']} embedded"
        )
        if not result["entities"]:
            info("no entity matched: run `graphrag extract` first, or check --type and --corpus")
    if result["documents"]["failed"]:
        raise SystemExit(3)
