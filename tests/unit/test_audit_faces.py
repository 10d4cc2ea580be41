"""Every face that can write is audited, or says why not: each command of the CLI and each
POST/PUT/PATCH/DELETE route of the server is classified here, so a new command or route that
writes fails this test until it is audited (and exercised in tests/e2e/test_audit.py or
tests/e2e/serve/test_audit_served.py) or named as no write."""

from __future__ import annotations

import re
from pathlib import Path

import click

from graphrag_cypher.audit import DERIVED, OPERATIONS

from ..e2e.serve.test_audit_served import SERVED_FACES
from ..e2e.test_audit import CLI_FACES

ROOT = Path(__file__).resolve().parents[2]

# commands that write, and the operation of their record (through which choke point)
AUDITED_COMMANDS = {
    "apply-schema": "schema",  # admin.migrations.apply
    "keys add": "keys",  # apikeys.add: the key's name, rights and corpora, never the key
    "keys revoke": "keys",  # apikeys.revoke
    # derived writes (cli.context.with_graph): the command and Neo4j's counters
    **DERIVED,
    "embed": "embed",  # store.ingest.embed_pending
    "forget": "forget",  # store.documents.forget
    "learn": "learn",  # loaders.learn.learn_items / learn_topics
    "import": "import",  # cli.bulk import_cmd: the new database's first record
    "cypher": "cypher",  # with --write only
    "entity-docs": "load",  # store.ingest.Loader.run
    "load chunks": "load",
    "load feed": "load",
    "load files": "load",
    "load mediawiki": "load",
    "load mediawiki-api": "load",  # and its --prune (loaders.mediawiki_api)
    "load qa-corpus": "load",
    "load sample": "load",
    "load stories": "load",
    "load url": "load",
    "load records": "load",  # kg.records.run
    "load pleiades": "load",  # loaders.places.write_places
    "load geonames": "load",  # loaders.places.write_places
    "ask": "load",  # pages learned from the web fallback (--learn-web): Loader.run
    "chat": "learn",  # a `learn:` line; web pages as for ask
    "eval retrieval": "load",  # the QA corpus it loads (into its own Neo4j): Loader.run
    "eval answers": "load",
}
# administration not recorded: `schema clean` empties the database, the audit with it (a reset
# for tests); `schema unlock` releases a stale migration lock
NOT_RECORDED = {"schema clean", "schema unlock"}
READ_ONLY = {
    "audit",
    "communities show",
    "doctor",
    "export files",
    "export qa-corpus",
    "export stories",
    "keys list",
    "mcp",
    "models export",
    "neo4j build",
    "neo4j logs",
    "neo4j start",
    "neo4j status",
    "neo4j stop",
    "sanity",
    "schema status",
    "schema validate",
    "serve",
}
# routes that change something, and what they record
AUDITED_ROUTES = {
    "POST /documents": "upload",
    "POST /crawl": "crawl",
    "DELETE /documents/{document_id:path}": "forget",
}
ROUTES_NOT_WRITING = {
    "POST /chat": "an ask (pages learned from the web fallback are a load: Loader.run)",
    "POST /v1/chat/completions": "an ask, as /chat",
    "DELETE /jobs/{job_id}": "cancels a job: what it wrote is in its own record",
}


def commands() -> set[str]:
    from graphrag_cypher.cli.main import cli

    found: set[str] = set()

    def walk(command: click.Command, ctx: click.Context, path: list[str]) -> None:
        if isinstance(command, click.Group):
            for name in command.list_commands(ctx):
                walk(command.get_command(ctx, name), ctx, [*path, name])  # type: ignore[arg-type]
        else:
            found.add(" ".join(path))

    walk(cli, click.Context(cli), [])
    return found


def write_routes() -> set[str]:
    decorator = re.compile(r"@routes\.(post|put|patch|delete)\(\s*\"([^\"]+)\"")
    found = set()
    for path in [*(ROOT / "server" / "routes").glob("*.py"), ROOT / "server" / "openai_api.py"]:
        found |= {f"{m.group(1).upper()} {m.group(2)}" for m in decorator.finditer(path.read_text("utf-8"))}
    return found


def test_every_command_is_audited_or_says_why_not():
    classified = set(AUDITED_COMMANDS) | NOT_RECORDED | READ_ONLY
    assert len(classified) == len(AUDITED_COMMANDS) + len(NOT_RECORDED) + len(READ_ONLY)
    found = commands()
    assert not found - classified, f"commands not classified for the audit: {sorted(found - classified)}"
    assert not classified - found, f"classified but no such command: {sorted(classified - found)}"
    assert set(AUDITED_COMMANDS.values()) <= set(OPERATIONS)


def test_every_write_route_is_audited_or_says_why_not():
    found = write_routes()
    classified = set(AUDITED_ROUTES) | set(ROUTES_NOT_WRITING)
    assert not found - classified, f"write routes not classified for the audit: {sorted(found - classified)}"
    assert not classified - found, f"classified but no such route: {sorted(classified - found)}"


def test_the_e2e_audit_tests_run_the_faces_they_name():
    assert {face: AUDITED_COMMANDS[face.removesuffix(" --write")] for face in CLI_FACES} == CLI_FACES
    served = {face.replace("{id}", "{document_id:path}"): op for face, op in SERVED_FACES.items()}
    assert {face: op for face, op in served.items() if face.startswith(("POST", "DELETE"))} == AUDITED_ROUTES
    assert set(SERVED_FACES.values()) <= set(OPERATIONS)
