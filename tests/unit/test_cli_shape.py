"""The CLI's shape: help everywhere, with examples, and a fast start-up."""

import subprocess
import sys

import click
import pytest

from graphrag_cypher.cli.main import cli


def all_commands(group: click.Group, prefix=()):
    ctx = click.Context(group)
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        path = (*prefix, name)
        yield path, command
        if isinstance(command, click.Group):
            yield from all_commands(command, path)


COMMANDS = list(all_commands(cli))


def test_every_command_module_is_registered():
    """Each command a cli module defines at its top level is reachable as `graphrag NAME`
    (commands are registered by name in LAZY_COMMANDS and loaded when asked for)."""
    import importlib
    import pkgutil

    import graphrag_cypher.cli as package
    from graphrag_cypher.cli.main import LAZY_COMMANDS

    registered = {id(command) for path, command in COMMANDS if len(path) == 1}
    grouped = {
        id(sub) for _, command in COMMANDS if isinstance(command, click.Group) for sub in command.commands.values()
    }
    for info in pkgutil.iter_modules(package.__path__):
        module = importlib.import_module(f"graphrag_cypher.cli.{info.name}")
        for attribute, value in vars(module).items():
            if isinstance(value, click.Command) and value is not cli and id(value) not in grouped:
                assert id(value) in registered, f"{info.name}.{attribute} is not in LAZY_COMMANDS"
    assert len(COMMANDS) > len(LAZY_COMMANDS)  # the groups' subcommands are there too


@pytest.mark.process
def test_start_up_imports_no_command_module():
    """`graphrag ask` (and any command) imports only its own module: the others load when asked for."""
    code = (
        "import sys; from graphrag_cypher.cli.main import cli, LAZY_COMMANDS; "
        "cli.get_command(None, 'ask'); "
        "mods = {v.split(':')[0] for v in LAZY_COMMANDS.values()} - {'ask'}; "
        "print(','.join(sorted(m for m in mods if 'graphrag_cypher.cli.' + m in sys.modules)))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert out == "", f"imported with `ask`: {out}"


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


@pytest.mark.process
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
