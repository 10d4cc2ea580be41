"""The CLI's shape: help everywhere, with examples, and a fast start-up."""

import subprocess
import sys

import click
import pytest

from graphrag_cypher.cli.main import cli


def all_commands(group: click.Group, prefix=()):
    for name, command in group.commands.items():
        path = (*prefix, name)
        yield path, command
        if isinstance(command, click.Group):
            yield from all_commands(command, path)


COMMANDS = list(all_commands(cli))


@pytest.mark.parametrize("path", [p for p, _ in COMMANDS], ids=[" ".join(p) for p, _ in COMMANDS])
def test_every_command_has_help(run_cli, path):
    result = run_cli(*path, "--help")
    assert result.exit_code == 0, result.output
    assert "Usage: graphrag " + " ".join(path) in result.output


@pytest.mark.parametrize(
    "path",
    [p for p, c in COMMANDS if not isinstance(c, click.Group)],
    ids=[" ".join(p) for p, c in COMMANDS if not isinstance(c, click.Group)],
)
def test_every_command_help_has_an_example(run_cli, path):
    assert "Example:" in run_cli(*path, "--help").output


def test_version(run_cli):
    from graphrag_cypher import __version__

    result = run_cli("--version")
    assert result.exit_code == 0 and __version__ in result.output


def test_start_up_imports_no_heavy_library():
    code = (
        "import sys; import graphrag_cypher.cli.main; "
        "heavy = [m for m in ('neo4j', 'rich', 'torch', 'sentence_transformers', 'dotenv', 'yaml') if m in sys.modules]; "
        "print(','.join(heavy))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert out == "", f"imported at start-up: {out}"


def test_param_parsing():
    from graphrag_cypher.cli.cypher import parse_param

    assert parse_param("k=5") == ("k", 5)
    assert parse_param('$names=["a","b"]') == ("names", ["a", "b"])
    assert parse_param("q=hello world") == ("q", "hello world")
    with pytest.raises(click.BadParameter):
        parse_param("novalue")
