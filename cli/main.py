"""The `graphrag` command: one root group; each noun a subgroup or command module.

Only click is imported at start-up; every command imports what it needs when it runs,
so `graphrag --help` stays instant.
"""

from __future__ import annotations

import click

from graphrag_cypher import __version__


def _one_line(exc: BaseException) -> str:
    text = getattr(exc, "message", None) or str(exc) or type(exc).__name__
    return text.strip().splitlines()[0]


class GraphragGroup(click.Group):
    """Turns known failures into one actionable line and exit code 1, never a traceback; loads each
    command's module only when that command is asked for (LAZY_COMMANDS)."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*self.commands, *LAZY_COMMANDS})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands and cmd_name in LAZY_COMMANDS:
            import importlib

            module, attribute = LAZY_COMMANDS[cmd_name].split(":")
            command = getattr(importlib.import_module(f"graphrag_cypher.cli.{module}"), attribute)
            if command.name != cmd_name:
                raise RuntimeError(f"LAZY_COMMANDS[{cmd_name!r}] is the command {command.name!r}")
            self.add_command(command)
        return self.commands.get(cmd_name)

    def invoke(self, ctx: click.Context):
        from graphrag_cypher.errors import GraphragError

        try:
            return super().invoke(ctx)
        except GraphragError as exc:
            raise click.ClickException(_one_line(exc)) from None
        except (click.exceptions.Exit, click.exceptions.Abort, click.ClickException):
            raise
        except Exception as exc:
            if type(exc).__module__.split(".")[0] != "neo4j":
                raise
            code = getattr(exc, "code", None)
            prefix = f"Neo4j error {code}: " if code else "Neo4j error: "
            raise click.ClickException(prefix + _one_line(exc)) from None


@click.group(cls=GraphragGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "--version", prog_name="graphrag")
def cli() -> None:
    """graphrag: a Neo4j-native GraphRAG toolkit.

    Documents, stories, wiki pages and gazetteers go into one Neo4j knowledge graph;
    versioned Cypher keeps its schema; questions are answered from it with sources.

    Configuration comes from the environment and `.env` (NEO4J_URI, NEO4J_USERNAME,
    NEO4J_PASSWORD, NEO4J_DATABASE; see .env.example).

    \b
    Example:
      graphrag neo4j start
      graphrag apply-schema
      graphrag doctor
    """
    from graphrag_cypher import telemetry

    telemetry.setup()  # spans over OTLP when OTEL_EXPORTER_OTLP_ENDPOINT is set; nothing otherwise


# Each command's module is imported when that command runs (or `--help` lists it): a served
# `graphrag ask` pays for click and the ask module, not for every loader, linker and evaluator.
LAZY_COMMANDS = {
    "neo4j": "neo4j:neo4j_group",
    "apply-schema": "schema:apply_schema",
    "schema": "schema:schema_group",
    "doctor": "doctor:doctor",
    "cypher": "cypher:cypher",
    "load": "load:load_group",
    "embed": "load:embed",
    "learn": "load:learn",
    "link": "link:link_group",
    "communities": "communities:communities_group",
    "sanity": "link:sanity",
    "ask": "ask:ask",
    "chat": "ask:chat",
    "extract": "kg:extract",
    "resolve": "kg:resolve",
    "entity-docs": "kg:entity_docs",
    "eval": "evaluate:eval_group",
    "models": "models:models_group",
    "serve": "serve:serve",
    "mcp": "serve:mcp",
    "forget": "forget:forget",
    "audit": "audit:audit",
    "export": "bulk:export_group",
    "import": "bulk:import_cmd",
    "keys": "keys:keys_group",
}
