"""README.md's command reference is what the commands' `--help` says (regenerate: cog -r README.md)."""

from pathlib import Path

from graphrag_cypher.cli.main import cli
from graphrag_cypher.cli.reference import commands, markdown

README = Path(__file__).resolve().parents[2] / "README.md"
END = "<!-- [[[end]]] -->"


def generated_block() -> str:
    text = README.read_text(encoding="utf-8")
    start = text.index("from graphrag_cypher.cli.reference import markdown")
    start = text.index("]]] -->\n", start) + len("]]] -->\n")
    return text[start : text.index(END, start)]


def test_readme_reference_matches_help():
    assert generated_block() == markdown(), "README.md's command reference is stale: run `cog -r README.md`"


def test_reference_covers_every_command():
    block = generated_block()
    for path, _ in commands(cli):
        assert f"\n### graphrag {' '.join(path)}\n" in block
        assert f"Usage: graphrag {' '.join(path)} " in block
