"""The docs' command reference, rendered from the commands' own `--help`.

docs/reference/commands.md holds it in a cog block, so it cannot drift from the code::

    cog -r docs/reference/commands.md       # regenerate after changing a command or its options
    cog --check docs/reference/commands.md  # what `make lint` runs: fails when it is out of date
"""

from __future__ import annotations

from collections.abc import Iterator

import click

WIDTH = 100  # help is wrapped at a fixed width, so the text is the same on every terminal


def commands(group: click.Group, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], click.Command]]:
    """Every command under `group`, depth first, in the order `--help` lists them."""
    ctx = click.Context(group, info_name=" ".join(("graphrag", *path)))
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        if command is None or command.hidden:
            continue
        yield (*path, name), command
        if isinstance(command, click.Group):
            yield from commands(command, (*path, name))


def help_text(args: tuple[str, ...]) -> str:
    """What `graphrag ARGS --help` prints."""
    from click.testing import CliRunner

    from .main import cli

    result = CliRunner().invoke(
        cli,
        [*args, "--help"],
        prog_name="graphrag",
        terminal_width=WIDTH,
        max_content_width=WIDTH,
        catch_exceptions=False,
    )
    if result.exit_code != 0:
        raise RuntimeError(f"graphrag {' '.join(args)} --help failed: {result.output}")
    return result.output


def markdown() -> str:
    """`graphrag --help` and every command's `--help`, each under its own heading."""
    from .main import cli

    parts = ["### graphrag --help\n", "```\n" + help_text(()) + "```\n"]
    for path, _ in commands(cli):
        parts += [f"\n### graphrag {' '.join(path)}\n", "```\n" + help_text(path) + "```\n"]
    return "".join(parts)
