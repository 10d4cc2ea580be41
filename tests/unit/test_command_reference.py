"""The docs' command reference is what the commands' `--help` says.

Regenerate it with `cog -r docs/reference/commands.md`; `make lint` runs `cog --check` on it.
"""

from pathlib import Path

from graphrag_cypher.cli.main import cli
from graphrag_cypher.cli.reference import commands, markdown

REFERENCE = Path(__file__).resolve().parents[2] / "docs" / "reference" / "commands.md"
END = "<!-- [[[end]]] -->"


def generated_block() -> str:
    text = REFERENCE.read_text(encoding="utf-8")
    start = text.index("from graphrag_cypher.cli.reference import markdown")
    start = text.index("]]] -->\n", start) + len("]]] -->\n")
    return text[start : text.index(END, start)]


def test_reference_matches_help():
    assert generated_block() == markdown(), (
        "docs/reference/commands.md is stale: run `cog -r docs/reference/commands.md`"
    )


def test_reference_covers_every_command():
    block = generated_block()
    for path, _ in commands(cli):
        assert f"\n### graphrag {' '.join(path)}\n" in block
        assert f"Usage: graphrag {' '.join(path)} " in block
