"""The audit of writes against a real Neo4j, through the CLI in-process: every write face of the
command line leaves one :__Audit record with the key name `local`, the operation, its corpora and
what it changed; `graphrag audit` reads them newest first with its filters; an audit record that
cannot be written fails no write."""

from __future__ import annotations

import json
import logging

import pytest

from ..conftest import STRUCTURED_GRAPH
from ..reliability.slow_embedder import SlowEmbedder, apply_schema

pytestmark = pytest.mark.e2e

ZH_RECORDS = STRUCTURED_GRAPH[2]  # the structured graph's records load: a mapping and a schema of its own
# What each CLI write face records (operation); the e2e test below runs every one of them.
CLI_FACES = {
    "apply-schema": "schema",
    "load files": "load",
    "load sample": "load",
    "load records": "load",
    "embed": "embed",
    "learn": "learn",
    "forget": "forget",
    "cypher --write": "cypher",
    "link phrases": "link",
}


def rows(server, text: str, **params) -> list[dict]:
    with server.driver() as driver:
        return [r.data() for r in driver.execute_query(text, params).records]


def audit_json(run_cli, *args: str) -> list[dict]:
    result = run_cli("audit", "--json", *args)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)["audit"]


@pytest.fixture
def embedder():
    served = SlowEmbedder(seconds_per_text=0)
    yield served
    served.close()


@pytest.fixture
def folders(tmp_path):
    alpha, beta = tmp_path / "alpha", tmp_path / "beta"
    alpha.mkdir()
    beta.mkdir()
    (alpha / "granary.md").write_text("# Granary\n\nThe granary of Ostia held the winter wheat.\n", "utf-8")
    (alpha / "lighthouse.md").write_text("# Lighthouse\n\nThe lighthouse of Portus guided the ships.\n", "utf-8")
    (beta / "harbour.md").write_text("# Harbour\n\nThe harbour of Vesk froze in the long winter.\n", "utf-8")
    return alpha, beta


def test_every_cli_write_face_is_audited_with_its_key_corpus_and_counts(neo4j, run_cli, embedder, folders):
    alpha, beta = folders
    apply_schema(neo4j, embedder)  # in-process, as `graphrag apply-schema`
    done: dict[str, dict] = {}

    [schema] = audit_json(run_cli)
    assert schema["operation"] == "schema" and schema["key"] == "local" and schema["ok"] is True
    assert any(name.endswith("__Audit.cypher") for name in schema["changed"]["applied"])
    assert schema["changed"]["migrations"]["applied"] == len(schema["changed"]["applied"])
    done["apply-schema"] = schema
    assert run_cli("apply-schema", env=embedder.env()).exit_code == 0
    assert len(audit_json(run_cli)) == 1, "a schema already up to date wrote nothing: no record"

    loaded = json.loads(run_cli("load", "files", str(alpha), "--corpus", "alpha", "--no-embed", "--json").stdout)
    record = audit_json(run_cli)[0]
    assert (record["operation"], record["corpus"], record["key"]) == ("load", ["alpha"], "local")
    assert record["changed"]["loaders"] == {"files": 1}
    assert record["changed"]["documents"]["created"] == loaded["documents"]["created"] == 2
    assert record["changed"]["chunks"]["created"] == loaded["chunks"]["created"] >= 2
    done["load files"] = record

    result = run_cli("embed", "--json", env=embedder.env())
    assert result.exit_code == 0, result.output
    record = audit_json(run_cli)[0]
    assert record["operation"] == "embed" and record["changed"]["chunks"]["embedded"] == embedder.texts > 0
    done["embed"] = record
    assert run_cli("embed", env=embedder.env()).exit_code == 0
    assert audit_json(run_cli)[0] == record, "nothing left to embed: no record"

    learned = run_cli("learn", f"harbours | path: {beta}", "--corpus", "beta", "--no-embed", "--json")
    assert learned.exit_code == 0, learned.output
    record = audit_json(run_cli)[0]
    assert (record["operation"], record["corpus"]) == ("learn", ["beta"])
    assert record["changed"]["documents"]["created"] == 1 and record["changed"]["loaders"] == {"learn": 1}
    done["learn"] = record

    sample = run_cli("load", "sample", "--no-embed", "--json")
    assert sample.exit_code == 0, sample.output
    record = audit_json(run_cli)[0]
    assert record["operation"] == "load" and record["changed"]["loaders"] == {"sample": 1}
    assert record["changed"]["documents"]["created"] == json.loads(sample.stdout)["documents"]["created"] > 0
    done["load sample"] = record

    records = run_cli(*ZH_RECORDS, "--json")
    assert records.exit_code == 0, records.output
    record = audit_json(run_cli)[0]
    assert record["operation"] == "load" and record["changed"]["loaders"] == {"records": 1}
    assert record["changed"]["records"]["read"] == json.loads(records.stdout)["records"] > 0
    done["load records"] = record

    linked = run_cli("link", "phrases", "--json")
    assert linked.exit_code == 0, linked.output
    record = audit_json(run_cli)[0]
    assert (record["operation"], record["changed"]["command"]) == ("link", "link phrases")
    assert record["changed"]["graph"]["relationships_created"] > 0  # Neo4j's count of what it wrote
    done["link phrases"] = record
    assert run_cli("link", "phrases", "--dry-run").exit_code == 0
    assert audit_json(run_cli)[0] == record, "a dry run writes nothing: no record"
    assert run_cli("link", "phrases").exit_code == 0
    assert audit_json(run_cli)[0] == record, "a second run that changes nothing: no record"

    [granary] = [r["id"] for r in rows(neo4j, "MATCH (d:Document) WHERE d.title = 'Granary' RETURN d.id AS id")]
    assert run_cli("forget", granary).exit_code == 0
    record = audit_json(run_cli)[0]
    assert (record["operation"], record["corpus"], record["ok"]) == ("forget", ["alpha"], True)
    assert record["changed"]["forgotten"] == [granary] and record["changed"]["documents"]["deleted"] == 1
    assert record["changed"]["chunks"]["deleted"] >= 1
    done["forget"] = record
    assert run_cli("forget", "no-such-document").exit_code == 1
    failed = audit_json(run_cli)[0]
    assert (failed["operation"], failed["ok"]) == ("forget", False)
    assert failed["error"].startswith("no document with id 'no-such-document'")

    wrote = run_cli("cypher", "CREATE (:AuditNote {text: 'by hand'})", "--write")
    assert wrote.exit_code == 0, wrote.output
    record = audit_json(run_cli)[0]
    assert record["operation"] == "cypher" and record["changed"]["counters"]["nodes_created"] == 1
    assert record["changed"]["statement"] == "CREATE (:AuditNote {text: 'by hand'})"
    done["cypher --write"] = record
    assert run_cli("cypher", "MATCH (n:AuditNote) RETURN count(n) AS n").exit_code == 0
    assert audit_json(run_cli)[0] == record, "a read is no write: no record"

    assert {face: r["operation"] for face, r in done.items()} == CLI_FACES
    everything = audit_json(run_cli, "--limit", "100")
    assert len(everything) == len(CLI_FACES) + 1  # and the failed forget
    assert {r["key"] for r in everything} == {"local"}
    assert [r["at"] for r in everything] == sorted((r["at"] for r in everything), reverse=True), "newest first"
    stored = rows(neo4j, "MATCH (a:__Audit) RETURN count(a) AS n")[0]["n"]
    assert stored == len(everything)


def test_audit_filters_and_its_one_line_refusals(neo4j, run_cli, embedder, folders):
    alpha, beta = folders
    apply_schema(neo4j, embedder)
    for folder, corpus in ((alpha, "alpha"), (beta, "beta")):
        assert run_cli("load", "files", str(folder), "--corpus", corpus, "--no-embed").exit_code == 0

    assert [r["operation"] for r in audit_json(run_cli)] == ["load", "load", "schema"]
    assert [r["corpus"] for r in audit_json(run_cli, "--corpus", "beta")] == [["beta"]]
    assert audit_json(run_cli, "--corpus", "gamma") == []
    assert len(audit_json(run_cli, "--key", "local")) == 3
    assert audit_json(run_cli, "--key", "team-a") == []
    assert len(audit_json(run_cli, "--since", "1d")) == 3
    assert audit_json(run_cli, "--since", "2999-01-01") == []
    assert len(audit_json(run_cli, "--since", "2000-01-01T00:00:00Z")) == 3
    [newest] = audit_json(run_cli, "--limit", "1")
    assert newest["corpus"] == ["beta"]

    text = run_cli("audit")
    assert text.exit_code == 0
    assert "local" in text.output and "documents.created 2" in text.output and "schema" in text.output
    assert run_cli("audit", "--corpus", "gamma").output.strip() == "no writes recorded that match"
    bad = run_cli("audit", "--since", "yesterday")
    assert bad.exit_code == 1 and len(bad.output.strip().splitlines()) == 1
    assert "--since 'yesterday'" in bad.output and "1d" in bad.output


def test_an_audit_that_cannot_be_written_fails_no_write(neo4j, run_cli, embedder, folders, caplog):
    alpha, _ = folders
    apply_schema(neo4j, embedder)
    # a second record by the same key now breaks this constraint: every audit write fails
    rows(neo4j, "CREATE CONSTRAINT audit_one_per_key FOR (a:__Audit) REQUIRE a.key IS UNIQUE")
    with caplog.at_level(logging.WARNING, logger="graphrag.audit"):
        result = run_cli("load", "files", str(alpha), "--corpus", "alpha", "--no-embed", "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["documents"]["created"] == 2
    assert rows(neo4j, "MATCH (d:Document {corpus: 'alpha'}) RETURN count(d) AS n")[0]["n"] == 2
    lines = [r.getMessage() for r in caplog.records if r.name == "graphrag.audit"]
    assert len(lines) == 1 and lines[0].startswith("audit: could not record load by local: ")
    assert "\n" not in lines[0]
    assert [r["operation"] for r in audit_json(run_cli)] == ["schema"]
