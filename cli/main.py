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
    """Turns known failures into one actionable line and exit code 1, never a traceback."""

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


def _register() -> None:
    from graphrag_cypher.cli import ask, cypher, doctor, load, neo4j, schema

    cli.add_command(neo4j.neo4j_group)
    cli.add_command(schema.apply_schema)
    cli.add_command(schema.schema_group)
    cli.add_command(doctor.doctor)
    cli.add_command(cypher.cypher)
    cli.add_command(load.load_group)
    cli.add_command(load.embed)
    cli.add_command(load.learn)
    from graphrag_cypher.cli import link

    cli.add_command(link.link_group)
    cli.add_command(link.sanity)
    cli.add_command(ask.ask)
    cli.add_command(ask.chat)
    from graphrag_cypher.cli import kg

    cli.add_command(kg.extract)
    cli.add_command(kg.resolve)
    cli.add_command(kg.entity_docs)
    from graphrag_cypher.cli import evaluate

    cli.add_command(evaluate.eval_group)
    from graphrag_cypher.cli import forget, models, serve

    cli.add_command(models.models_group)

    cli.add_command(serve.serve)
    cli.add_command(serve.mcp)
    cli.add_command(forget.forget)


_register()
