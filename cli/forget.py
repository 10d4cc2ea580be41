"""`graphrag forget`: remove a document and everything only it gave a source to."""

from __future__ import annotations

import click

from .context import with_graph
from .output import print_json
from .params import json_option


@click.command("forget")
@click.argument("document_ids", nargs=-1, required=True)
@json_option
@with_graph
def forget(graph, document_ids, as_json) -> None:
    """Forget documents completely: their chunks, the chunks' mentions and phrase links,
    phrases that no longer join two chunks, the relations the document was the source of (a
    wiki page's infobox edges, a records file's relations) and entities left with no source.

    Every phrase's chunk count is given back in the deleting transaction, and the phrases the
    document's chunks shared are re-linked at once (incrementally: what changed only).

    Gazetteer places stay (they are sources of their own). `graphrag sanity` finds no
    orphans afterwards. The same as DELETE /documents/{id} of `graphrag serve`.

    \b
    Example:
      graphrag forget "file:3f2a9c1b7d4e:notes/harbours.md"
      graphrag forget story:T1 story:T2 --json
      graphrag forget records:got:characters.json
    """
    from graphrag_cypher.linkers.phrases import link_phrases
    from graphrag_cypher.store.documents import DocumentNotFound
    from graphrag_cypher.store.documents import forget as forget_document
    from graphrag_cypher.terminal import safe_text

    results, missing = [], []
    for document_id in document_ids:
        try:
            result = forget_document(graph, document_id)
            result["phrases"] = link_phrases(graph).phrases_removed  # what its chunks shared, re-decided
            results.append(result)
        except DocumentNotFound as exc:
            missing.append(document_id)
            click.echo(f"error: {safe_text(str(exc), keep_newlines=False)}", err=True)
    if as_json:
        print_json({"forgotten": results, "not_found": missing})
    else:
        for r in results:
            click.echo(
                safe_text(
                    f"forgot {r['document_id']}: {r['chunks']} chunk(s), {r['phrases']} phrase(s), "
                    + (f"{r['relations']} relation(s) it was the source of, " if r.get("relations") else "")
                    + f"{r['entities']} entity(ies) left with no source",
                    keep_newlines=False,
                )
            )
    if missing:
        raise SystemExit(1 if not results else 3)
