"""`graphrag link places|titles|phrases|entities|wikidata` and `graphrag sanity`: parse, run, print.

Every linker is ``link_<name>(graph, options) -> result`` (`graphrag_cypher.linkers.base`):
a command builds the options, hands over a progress callback, prints ``result.to_dict()``
under --json or one summary line otherwise.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import click

from .context import with_graph
from .output import info, print_json
from .params import dry_run_option, json_option


@contextmanager
def progress_shown(as_json: bool) -> Iterator[Callable[[str], None]]:
    """The linkers' progress callback: a live status line on a terminal, plain lines on stderr
    elsewhere (logs), nothing under --json."""
    if as_json:
        yield lambda message: None
        return
    from rich.console import Console

    console = Console(stderr=True)
    if not console.is_terminal:
        yield info
        return
    from graphrag_cypher.terminal import rich_text

    with console.status("linking…") as status:
        yield lambda message: status.update(rich_text(message))


@click.group("link")
def link_group() -> None:
    """Link chunks to places, titles, shared phrases and entities, and places to Wikidata.

    Every linker is deterministic and idempotent: a second run creates nothing, and edges
    an earlier run made that the current rules no longer make are removed. All take --json
    (one object: what was found, created, removed, and the time of each phase); those that
    read chunks take --dry-run, and places, titles and entities --corpus.

    \b
    Example:
      graphrag link places --corpus isaw --dry-run --json
    """


@link_group.command("places")
@click.option(
    "--engine",
    type=click.Choice(["fast", "procedure", "cypher"]),
    default="fast",
    show_default=True,
    help="fast: one Aho–Corasick pass over all chunks; procedure: the whole linker inside Neo4j "
    "(the graphrag plugin's graphrag.link.places: the same matches, decisions and edges); "
    "cypher: the reference, one full-text query per name.",
)
@click.option(
    "--min-length",
    type=click.IntRange(1, 100),
    default=3,
    show_default=True,
    help="Shortest name (folded) that is looked for.",
)
@click.option(
    "--stoplist",
    "stoplists",
    multiple=True,
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="A file of names never to link, one per line (added to the shipped list). Repeatable.",
)
@click.option("--no-default-stoplist", is_flag=True, help="Do not use the shipped stop-list.")
@click.option("--any-case", is_flag=True, help="Also link matches written without a capital letter.")
@click.option(
    "--keep-bibliographies",
    is_flag=True,
    help='Also scan bibliography / works-cited sections and publisher places ("London: Routledge").',
)
@click.option(
    "--names-per-query",
    type=click.IntRange(1, 5000),
    default=1,
    show_default=True,
    help="cypher engine: names per statement (1 = one full-text query per name, the seed's method).",
)
@click.option("--corpus", default=None, help="Only chunks of documents of this corpus.")
@click.option(
    "--gazetteer",
    "gazetteers",
    multiple=True,
    type=click.Choice(["pleiades", "geonames"]),
    help="Only places of this gazetteer (default: all). Repeatable.",
)
@click.option(
    "--min-confidence",
    type=click.FloatRange(0, 1),
    default=0.5,
    show_default=True,
    help="Link a mention only when its decision is at least this sure (the rest are counted as undecided).",
)
@click.option(
    "--no-cache",
    is_flag=True,
    help="Build the name table from the places instead of using .graphrag/cache/ (and do not save it).",
)
@dry_run_option
@json_option
@with_graph
def link_places(
    graph,
    engine,
    min_length,
    stoplists,
    no_default_stoplist,
    any_case,
    keep_bibliographies,
    names_per_query,
    corpus,
    gazetteers,
    min_confidence,
    no_cache,
    dry_run,
    as_json,
) -> None:
    """Link chunks to the places they mention (Chunk -[:MENTIONS]-> Place).

    Names are matched accent- and case-folded on word boundaries; the matched text must
    contain a capital letter; of overlapping names the longest wins; stop-listed names,
    names shorter than --min-length, bibliography sections and not-a-place contexts
    ("Heron of Alexandria", "P. Cairo", "American School at Athens", italic titles) are
    skipped. Each mention gets one decision: the record the text means, from how well each
    candidate is described, the words around it and the document's other places. Each
    edge records `matched`, `rule`, `confidence`, `candidates` (best first), `source` and
    `at`; decisions below --min-confidence link nothing. The name table is cached in
    .graphrag/cache/ and used while the places are unchanged (--no-cache: not).

    \b
    Example:
      graphrag link places
      graphrag link places --engine cypher --dry-run --json
      graphrag link places --engine procedure --corpus isaw
      graphrag link places --stoplist my-stoplist.txt --corpus isaw --min-confidence 0.7
    """
    from graphrag_cypher.linkers.matcher import load_stoplist
    from graphrag_cypher.linkers.places import SKIP_SECTIONS, PlaceLinkOptions
    from graphrag_cypher.linkers.places import link_places as run

    with progress_shown(as_json) as progress:
        options = PlaceLinkOptions(
            engine=engine,
            min_length=min_length,
            stoplist=load_stoplist(stoplists, default=not no_default_stoplist),
            require_capital=not any_case,
            skip_tails=not keep_bibliographies,
            skip_sections=None if keep_bibliographies else SKIP_SECTIONS,
            corpus=corpus,
            gazetteers=tuple(gazetteers) or None,
            dry_run=dry_run,
            name_batch=names_per_query,
            min_confidence=min_confidence,
            cache_dir=None if no_cache else PlaceLinkOptions.cache_dir,
            progress=progress,
        )
        out = run(graph, options).to_dict()
    if as_json:
        print_json(out)
        return
    verb = "would link" if dry_run else "linked"
    click.echo(
        f"{engine} engine: {out['names']} names, {out['chunks_scanned']} chunks scanned "
        f"({out['chunks_skipped']} in bibliographies skipped); {verb} {out['mentions']} chunk-place pairs "
        f"({out['mentions_created']} created, {out['mentions_removed']} removed, {out['mentions_total']} in the graph); "
        f"undecided mentions (no edge): {out['undecided']}; not places: {sum(out['not_a_place'].values())}; "
        f"inside longer names: {out['overlapped']}; stop-listed names: {out['stoplisted']}"
    )


@link_group.command("titles")
@click.option("--corpus", default=None, help="Only documents of this corpus.")
@click.option(
    "--min-length",
    type=click.IntRange(1, 100),
    default=4,
    show_default=True,
    help="Shortest title (folded) that is looked for in text.",
)
@click.option(
    "--full",
    is_flag=True,
    help="Match every chunk against every title (default: only chunks and titles new or changed since the last run).",
)
@dry_run_option
@json_option
@with_graph
def link_titles_cmd(graph, corpus, min_length, full, dry_run, as_json) -> None:
    """Register document titles as :Topic entities and link the chunks that name them.

    For encyclopedic corpora (wiki pages, QA passages): each title becomes a topic its own
    chunks are about, and every chunk naming another title (word boundaries, capitalised,
    accents folded) mentions that topic. The graph retrieval mode follows these links.

    A run works on what changed since the last one: the chunks loaded or changed since are
    matched against every title, and the titles that are new are looked for in the other
    chunks (a full-text shortlist, then the same exact matcher); topics whose title no
    document carries any more are removed. --full matches everything again (the same
    edges); the first run, and a run with another --min-length, is a full one.

    \b
    Example:
      graphrag load qa-corpus musique_train_corpus.json --corpus musique
      graphrag link titles --corpus musique
      graphrag load files new-article.md --corpus musique && graphrag link titles --corpus musique
      graphrag link titles --full --json
    """
    from graphrag_cypher.linkers.titles import TitleLinkOptions, link_titles

    with progress_shown(as_json) as progress:
        result = link_titles(
            graph,
            TitleLinkOptions(corpus=corpus, min_length=min_length, full=full, dry_run=dry_run, progress=progress),
        ).to_dict()
    if as_json:
        print_json(result)
    else:
        scope = (
            "all chunks"
            if result["full"]
            else f"{result['chunks_scanned']} new or changed chunk(s), {result['new_titles']} new title(s)"
        )
        click.echo(
            f"{result['topics']} topic(s) from {result['documents']} document(s) ({scope}); "
            f"{result['title_mentions_found']} title mention(s) found"
            + (
                ""
                if dry_run
                else f", {result['mentions_created']} link(s) created, {result['mentions_removed']} removed, "
                f"{result['topics_removed']} topic(s) removed"
            )
        )


@link_group.command("phrases")
@click.option(
    "--max-chunks",
    type=click.IntRange(2, None),
    default=None,
    help="Keep a phrase only when at most this many chunks share it (default: as the last run, else 250; "
    "a change re-reads every chunk).",
)
@click.option(
    "--min-length",
    type=click.IntRange(1, 100),
    default=None,
    help="Shortest phrase (folded) that is kept (default: as the last run, else 3).",
)
@click.option(
    "--full",
    is_flag=True,
    help="Re-read every chunk (default: only chunks learned, changed or forgotten since the last run).",
)
@dry_run_option
@json_option
@with_graph
def link_phrases_cmd(graph, max_chunks, min_length, full, dry_run, as_json) -> None:
    """Link chunks that share a rare named phrase: (:Chunk)-[:HAS_PHRASE]->(:Phrase).

    Phrases are runs of capitalised words ("American Psychological Association") and the
    words in them ("Finland"), accent- and case-folded; one that 2 to --max-chunks chunks
    share becomes a :Phrase with its chunk count. The graph retrieval mode follows them
    from its top seeds, rarer phrases weighing more, each while at most max(50, 2 % of all
    chunks) share it (so past 12,500 chunks raise --max-chunks to match). No LLM; a second
    run changes nothing.

    A run reads only the chunks loaded, changed or forgotten since the last one (every
    count is kept in the graph), so its cost follows the change, not the corpus. The first
    run, a changed --max-chunks/--min-length, or --full reads every chunk, streamed, and
    leaves exactly the graph the incremental runs keep. A --dry-run reads every chunk.

    \b
    Example:
      graphrag load qa-corpus musique_train_corpus.json --corpus musique
      graphrag link titles && graphrag link phrases
      graphrag ask "What currency predated the Euro in the country Signmark is from?"
      graphrag link phrases --full --json
    """
    from graphrag_cypher.linkers.phrases import PhraseLinkOptions, link_phrases

    with progress_shown(as_json) as progress:
        result = link_phrases(
            graph,
            PhraseLinkOptions(
                max_chunks=max_chunks, min_length=min_length, full=full, dry_run=dry_run, progress=progress
            ),
        ).to_dict()
    from graphrag_cypher.terminal import safe_text

    for skipped in result.get("errors") or []:  # chunks Neo4j refused: skipped, the rest linked
        click.echo(f"error: {safe_text(skipped['item'], False)}: {safe_text(skipped['error'], False)}", err=True)
    if as_json:
        print_json(result)
    else:
        click.echo(
            ("full run: " if result["full"] else "")
            + f"{result['phrases']} phrase(s) shared by 2-{result['max_chunks']} chunks, {result['chunks']} chunk(s) read, "
            f"{result['links']} chunk-phrase link(s); {result['too_common']} too common"
            + (
                ""
                if dry_run
                else f"; {result['links_created']} link(s) created, {result['links_removed']} "
                f"removed, {result['phrases_removed']} phrase(s) removed"
            )
        )


@link_group.command("wikidata")
@click.option(
    "--endpoint",
    default="https://query.wikidata.org/sparql",
    show_default=True,
    envvar="GRAPHRAG_WIKIDATA_ENDPOINT",
    help="SPARQL endpoint. Env: GRAPHRAG_WIKIDATA_ENDPOINT.",
)
@click.option("--batch", type=click.IntRange(1, 1000), default=200, show_default=True, help="Pleiades ids per query.")
@click.option("--delay", type=float, default=1.0, show_default=True, help="Seconds between queries (be polite).")
@click.option("--timeout", type=float, default=60.0, show_default=True, help="Seconds per query.")
@click.option(
    "--retries",
    type=click.IntRange(0, 20),
    default=5,
    show_default=True,
    help="Retries on 429, 5xx and timeouts (exponential backoff with jitter).",
)
@click.option(
    "--all", "recheck", is_flag=True, help="Look up every place again (default: only places not looked up before)."
)
@click.option("--limit", type=int, default=None, help="Stop after this many places.")
@json_option
@with_graph
def link_wikidata(graph, endpoint, batch, delay, timeout, retries, recheck, limit, as_json) -> None:
    """Align Pleiades places with Wikidata items by Pleiades id (P1584).

    Creates (:WikidataEntity {qid, uri, label, instanceOf, lat, lon}) and
    (:Place)-[:SAME_AS {property: 'P1584', source: 'wikidata', matchedBy: 'pleiadesId'}]->(it).
    Resumable: places looked up before are skipped; interrupt it and run it again.

    \b
    Example:
      graphrag link wikidata
      graphrag link wikidata --endpoint http://127.0.0.1:7878/query --batch 100 --delay 0
    """
    from graphrag_cypher.linkers.wikidata import WikidataOptions
    from graphrag_cypher.linkers.wikidata import link_wikidata as run

    with progress_shown(as_json) as progress:
        result = run(
            graph,
            WikidataOptions(
                endpoint=endpoint,
                batch=batch,
                delay=delay,
                timeout=timeout,
                retries=retries,
                recheck=recheck,
                limit=limit,
                progress=progress,
            ),
        ).to_dict()
    if as_json:
        print_json(result)
        return
    click.echo(
        f"wikidata: {result['places_queried']} places queried in {result['queries']} queries; "
        f"{result['matched']} matched; {result['entities_created']} items and {result['links_created']} "
        f"SAME_AS created; {result['aligned_total']} places aligned in the graph"
    )


@link_group.command("entities")
@click.option("--min-length", type=click.IntRange(1, 100), default=3, show_default=True)
@click.option("--any-case", is_flag=True, help="Also link matches written without a capital letter.")
@click.option(
    "--max-per-chunk",
    type=click.IntRange(2, 1000),
    default=25,
    show_default=True,
    help="At most this many entities of one chunk count towards CO_OCCURS.",
)
@click.option("--corpus", default=None, help="Only chunks of documents of this corpus.")
@click.option(
    "--full",
    is_flag=True,
    help="Decide every document again (default: only documents with new or changed chunks, "
    "or naming entities new or changed since the last run).",
)
@dry_run_option
@json_option
@with_graph
def link_entities(graph, min_length, any_case, max_per_chunk, corpus, full, dry_run, as_json) -> None:
    """Link chunks to the known entities they mention, by name and aliases; count co-occurrences.

    Uses the place linker's matcher (folded, word boundaries, capital letter, longest
    match) and its decision: a name two entities share links the one the document names
    unambiguously elsewhere, or none. Entities tied to one document (`documentId`) are
    only looked for in that document. Entities mentioned in the same chunk get
    (a)-[:CO_OCCURS {count}]->(b).

    A run works on what changed since the last one: documents with chunks loaded or changed
    since, and documents naming an entity that is new or changed (a full-text shortlist of
    its names, then the same matcher) are decided again, whole; CO_OCCURS is counted again
    for their pairs. --full decides every document (the same edges); the first run, a run
    after an entity was deleted or with other rules, is a full one. A --corpus run does not
    remember the entities it linked, so the next run without --corpus looks for them again.

    Authors are people: a document's authors (from its metadata) are linked where its text
    names them in full. A graph loaded before that gets its (:Person)-[:AUTHORED]->(:Document)
    edges from the documents' stored `authors` lists on the first run.

    \b
    Example:
      graphrag link entities
      graphrag load files papers/ && graphrag link entities && graphrag ask "Which papers did Ana Lima write?"
      graphrag extract --schema got --extractor infobox && graphrag link entities
      graphrag link entities --full --corpus tales --json
    """
    from graphrag_cypher.linkers.entities import EntityLinkOptions
    from graphrag_cypher.linkers.entities import link_entities as run

    with progress_shown(as_json) as progress:
        result = run(
            graph,
            EntityLinkOptions(
                min_length=min_length,
                require_capital=not any_case,
                max_per_chunk=max_per_chunk,
                corpus=corpus,
                full=full,
                dry_run=dry_run,
                progress=progress,
            ),
        ).to_dict()
    if as_json:
        print_json(result)
        return
    scope = "all documents" if result["full"] else f"{result['documents']} document(s) new or affected"
    click.echo(
        f"entities: {result['names']} names, {result['chunks_scanned']} chunks of {scope}; {result['mentions']} links "
        f"({result['mentions_created']} created, {result['mentions_removed']} removed); CO_OCCURS: "
        f"{result['co_occurs']} pairs ({result['co_occurs_created']} created)"
        + (f"; AUTHORED: {result['authored']} edges from documents' authors" if result["authored"] else "")
    )


@click.command("sanity")
@click.option("--corpus", default=None, help="Per-document coverage only for this corpus.")
@json_option
@with_graph
def sanity(graph, corpus, as_json) -> None:
    """Check the graph: counts, per-document coverage, Wikidata alignment, orphans, duplicates.

    The exit code is 1 when an integrity rule is broken (chunks without a document,
    MENTIONS without an entity at the end, duplicate MENTIONS, SAME_AS without an item).

    \b
    Example:
      graphrag sanity
      graphrag sanity --corpus isaw --json
    """
    from graphrag_cypher.linkers.sanity import check
    from graphrag_cypher.terminal import safe_text

    from .output import print_table

    report = check(graph, corpus=corpus)
    if as_json:
        print_json(report)
    else:
        print_table(["label", "nodes"], sorted(report["labels"].items()), title="Nodes")
        print_table(["type", "relationships"], sorted(report["relationships"].items()), title="Relationships")
        docs = report["coverage"]["documents"]
        print_table(
            ["document", "chunks", "with places", "places", "links", "on wikidata"],
            [
                [
                    d["title"] or d["id"],
                    d["chunks"],
                    d["chunksWithPlaces"],
                    d["places"],
                    d["links"],
                    d["wikidataPlaces"],
                ]
                for d in docs[:200]
            ],
            title=f"Coverage ({len(docs)} documents" + (", first 200)" if len(docs) > 200 else ")"),
        )
        w = report["wikidata"]
        click.echo(
            f"wikidata: {w['alignedPlaces']} of {w['pleiadesPlaces']} Pleiades places aligned "
            f"({w['wikidataEntities']} items)"
        )
        click.echo(f"shared place names: {report['duplicates']['sharedNames']}")
        for violation in report["violations"]:
            click.echo(f"violation: {safe_text(violation)}", err=True)
        click.echo("ok" if report["ok"] else f"{len(report['violations'])} integrity violation(s)")
    if not report["ok"]:
        raise SystemExit(1)
