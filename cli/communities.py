"""`graphrag communities build | show | report <id>`: themes of the corpus, found without an LLM."""

from __future__ import annotations

import click

from .context import with_graph
from .link import progress_shown
from .output import print_json, print_table
from .params import json_option


@click.group("communities")
def communities_group() -> None:
    """Communities of the phrase/entity graph: the themes of the corpus, for global questions.

    `build` projects chunks, shared rare phrases, entities, documents and similar chunks into
    Open GDS, runs hierarchical Leiden and writes :Community nodes (level 0 the coarsest) with an
    extractive report each: title, key phrases, top entities, documents and representative
    sentences. No LLM is needed; --llm-reports adds written reports.

    \b
    Example:
      graphrag load sample && graphrag link phrases
      graphrag communities build
      graphrag communities show --level 0
    """


@communities_group.command("build")
@click.option(
    "--llm-reports",
    is_flag=True,
    help="Also have the LLM write a report per community, citing its chunks (cached by members and model).",
)
@click.option(
    "--parallel",
    type=click.IntRange(1, 64),
    default=4,
    show_default=True,
    help="LLM requests in flight at once (with --llm-reports).",
)
@click.option(
    "--no-embed",
    is_flag=True,
    help="Do not embed the report of a community none of whose chunks has an embedding.",
)
@click.option(
    "--by-corpus/--whole",
    "by_corpus",
    default=None,
    help="Find each corpus's communities apart (no theme joins two corpora, so a key scoped to a corpus "
    "sees every theme of it), or over the whole graph. Default: as the last build did (--whole at first).",
)
@json_option
@with_graph(config=True)
def communities_build(graph, config, llm_reports, parallel, no_embed, by_corpus, as_json) -> None:
    """Find the communities of the graph and write them with their reports.

    Idempotent: a community is identified by its members, so a second build on an unchanged
    graph writes nothing, and after new documents only the communities whose members changed
    are written again (those that no longer exist are deleted). The GDS projection is dropped
    after every run. Needs Open GDS in Neo4j (`graphrag neo4j start` ships it).

    On a server shared by teams, --by-corpus finds each corpus's communities apart: a theme
    over the whole graph can join chunks of two corpora (a place both name), and a key scoped to
    one of them is shown no community that holds another corpus's chunks. Later builds keep
    the mode the last one used.

    \b
    Example:
      graphrag communities build
      graphrag communities build --json | jq .counts
      graphrag communities build --by-corpus
      GRAPHRAG_LLM_MODEL=gpt-4o-mini graphrag communities build --llm-reports --parallel 8
    """
    from graphrag_cypher.linkers.communities import build

    embedder = None
    if not no_embed:
        from graphrag_cypher.embedder import LazyEmbedder

        embedder = LazyEmbedder(config)
    with progress_shown(as_json) as progress:
        result = build(
            graph,
            embedder=embedder,
            settings=config,
            progress=progress,
            llm_reports=llm_reports,
            parallel=parallel,
            by_corpus=by_corpus,
        )
    if as_json:
        print_json(result.to_dict())
        return
    per_level = ", ".join(f"level {i}: {n}" for i, n in enumerate(result.counts)) or "none"
    click.echo(
        f"{result.algorithm}{' by corpus' if result.by_corpus else ''}: {sum(result.counts)} communities in "
        f"{result.levels} level(s) ({per_level}) "
        f"of {result.members} chunks and entities ({result.chunks} chunks in the graph); {result.created} created, "
        f"{result.updated} updated, {result.kept} kept, {result.deleted} deleted; {result.ms} ms "
        f"(graph of {result.projected_nodes} nodes, {result.projected_relationships} links and "
        f"{result.knn_relationships} similarity links)"
    )
    llm = result.llm
    if llm:
        click.echo(
            f"LLM reports ({llm['model']}): {llm['written']} written, {llm['cached']} cached, {llm['failed']} failed"
        )
        if llm.get("error"):
            from graphrag_cypher.terminal import safe_text

            click.echo(f"error: {safe_text(llm['error'], keep_newlines=False)}", err=True)


@communities_group.command("show")
@click.option("--level", type=click.IntRange(0, None), default=None, help="Only this level (0: the coarsest).")
@click.option("--corpus", default=None, help="Only communities with chunks of this corpus.")
@click.option("--limit", type=click.IntRange(1, 100000), default=50, show_default=True, help="At most this many.")
@json_option
@with_graph
def communities_show(graph, level, corpus, limit, as_json) -> None:
    """List communities: id, level, size, documents and title, the largest of each level first.

    \b
    Example:
      graphrag communities show --level 0
      graphrag communities show --corpus sample --limit 10 --json
    """
    rows = graph.read("communities/list", level=level, corpus=corpus, limit=limit)
    if as_json:
        print_json({"communities": rows})
        return
    if not rows:
        state = graph.read("communities/state")
        hint = "none match" if state else "none built yet: run `graphrag communities build`"
        click.echo(f"communities: {hint}")
        return
    print_table(
        ["id", "level", "size", "documents", "title"],
        [[r["id"], r["level"], r["size"], r["documents"], r["title"]] for r in rows],
        title=f"Communities ({len(rows)})",
    )


@communities_group.command("report")
@click.argument("community_id")
@json_option
@with_graph
def communities_report(graph, community_id, as_json) -> None:
    """Print a community's report (and its LLM-written report, if any).

    \b
    Example:
      graphrag communities show --level 0 --limit 3
      graphrag communities report L0-622ba40dbb91
    """
    from graphrag_cypher.errors import GraphragError
    from graphrag_cypher.terminal import safe_text

    rows = graph.read("communities/get", id=community_id)
    if not rows:
        raise GraphragError(f"no community {community_id!r}: see `graphrag communities show` for the ids")
    row = rows[0]
    community = {k: v for k, v in row["community"].items() if k != "embedding"}
    if as_json:
        print_json({**community, "parent": row["parent"], "children": row["children"]})
        return
    click.echo(f"{safe_text(community['id'])} (level {community['level']})")
    click.echo(safe_text(community.get("summary") or ""))
    if row["parent"] or row["children"]:
        click.echo(
            f"Parent: {safe_text(row['parent'] or 'none')}; children: {len(row['children'])}"
            + (f" ({safe_text(', '.join(row['children'][:10]))})" if row["children"] else "")
        )
    if community.get("llmReport"):
        click.echo(f"\nLLM report ({safe_text(community.get('llmModel') or '')}):")
        click.echo(safe_text(community["llmReport"]))
