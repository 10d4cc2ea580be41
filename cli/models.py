"""`graphrag models export`: the default model as ONNX, for questions answered without torch."""

from __future__ import annotations

import click

from .output import info, print_json
from .params import json_option


@click.group("models")
def models_group() -> None:
    """The query-time embedding model (the default model exported to ONNX)."""


@models_group.command("export")
@click.option("--force", is_flag=True, help="Export again even when the export is up to date.")
@json_option
def models_export(force: bool, as_json: bool) -> None:
    """Export all-MiniLM-L6-v2 to ONNX for `ask`, `chat` and `serve` (make setup runs this).

    The weights come from the installed package (nothing is downloaded); the export is
    checked against sentence-transformers (cosine >= 0.9999) before it is kept in
    .graphrag/models/ (Env: GRAPHRAG_MODELS_DIR). It is redone only when the model files'
    fingerprint changed. Without an export, questions are embedded by sentence-transformers;
    `graphrag doctor` says which is used and why.

    \b
    Example:
      graphrag models export
      graphrag models export --force --json
    """
    from graphrag_cypher.onnx_embedder import export

    result = export(force=force, echo=info)
    if as_json:
        print_json(result)
    elif result["exported"]:
        click.echo(
            f"exported the ONNX model to {result['path']} (cosine {result['min_cosine']} to sentence-transformers)"
        )
    else:
        click.echo(f"the ONNX model in {result['path']} is up to date")
