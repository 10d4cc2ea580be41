"""`graphrag extract` and `graphrag resolve`: text and records into typed entities and relations."""

from __future__ import annotations

import click

from .context import with_graph
from .output import info, print_json, print_kg_summary
from .params import dry_run_option, json_option


@click.command("extract")
@click.option(
    "--schema",
    "schema_name",
    default=None,
    help="Built-in schema (folktale, got, ancient-world, generic) or a path to a schema YAML file. "
    "Default: folktale for --extractor llm, got for infobox.",
)
@click.option(
    "--extractor",
    type=click.Choice(["infobox", "llm"]),
    default="infobox",
    show_default=True,
    help="infobox: heuristics over loaded wiki pages; llm: an LLM reads each story.",
)
@click.option("--corpus", default=None, help="Only documents of this corpus.")
@click.option(
    "--resume", is_flag=True, help="llm: skip stories already extracted with the same model, schema and text."
)
@click.option("--limit", type=int, default=None, help="llm: at most this many stories in this run.")
@click.option(
    "--max-chars",
    type=int,
    default=12000,
    show_default=True,
    help="llm: stories longer than this are extracted chunk by chunk.",
)
@click.option(
    "--validate",
    is_flag=True,
    help="infobox: ask the LLM to confirm nodes with low confidence or close type scores; "
    "the types it gives decide which relations are built, in this run and later ones.",
)
@json_option
@with_graph(config=True)
def extract(graph, config, schema_name, extractor, corpus, resume, limit, max_chars, validate, as_json) -> None:
    """Build typed entities and relations from loaded documents, checked against a schema.

    The infobox extractor types each wiki page with an infobox by scoring its template,
    fields, title and categories (type_scores, confidence, reason are kept on the node)
    and maps fields to relations; relations the schema forbids are skipped and counted.
    The llm extractor sends each story (or chunk of a long one) to the configured LLM
    (OPENAI_BASE_URL, GRAPHRAG_LLM_MODEL) and keeps what the schema allows; progress is
    checkpointed on the story, so an interrupted run continues with --resume.

    \b
    Example:
      graphrag load mediawiki wiki.xml --no-embed
      graphrag extract --schema got --extractor infobox
      graphrag extract --schema folktale --extractor llm --resume
    """
    from graphrag_cypher.kg.schema import load_schema

    schema = load_schema(schema_name or ("folktale" if extractor == "llm" else "got"))
    if extractor == "infobox":
        from graphrag_cypher.kg import infobox

        result = infobox.run(graph, schema, corpus=corpus)
        if validate:
            from graphrag_cypher.kg import validate as validation

            checked = validation.run(graph, config, schema, progress=None if as_json else info)
            if checked["retyped"]:  # edges follow the validated types: build them again
                first = result["written"]
                result = infobox.run(graph, schema, corpus=corpus)
                result["written"] = {key: n + first.get(key, 0) for key, n in result["written"].items()}
            result["validation"] = checked
    else:
        from graphrag_cypher.kg import llm_extract

        result = llm_extract.run(
            graph,
            config,
            schema,
            corpus=corpus,
            resume=resume,
            limit=limit,
            max_chars=max_chars,
            progress=None if as_json else info,
        )
    if as_json:
        print_json(result)
    else:
        print_kg_summary(result)
        if result.get("stories"):
            s = result["stories"]
            click.echo(f"stories: {s['extracted']} extracted, {s['skipped']} already done, {s['failed']} failed")
        if result.get("validation"):
            v = result["validation"]
            click.echo(
                f"validation: {v['checked']} checked, {v['confirmed']} confirmed, {v['retyped']} retyped, "
                f"{v['unanswered']} unanswered"
            )
    if result.get("stories", {}).get("failed"):
        raise SystemExit(3)


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
    """Merge duplicate entities: same type, names that differ only by a typo or spelling.

    Names are compared after folding case, accents and punctuation; pairs of the same type
    and scope scoring at least --threshold (rapidfuzz) are merged, the merged name kept as
    an alias. With --dry-run the candidate pairs are listed and nothing changes.

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
        click.echo(f"{pair['score']:5.1f}  {pair['type']}: {pair['keep']['name']!r} <- {pair['merge']['name']!r}")
    verb = "would merge" if dry_run else "merged"
    click.echo(f"{len(result['candidates'])} candidate pair(s); {verb} {result['merged']}")
