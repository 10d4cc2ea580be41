"""Incremental `link titles` and `link entities` make what a full run makes.

Load A, link, load B, link ≡ load A+B, link --full: the same MENTIONS edges with their
properties (but the time made), the same Topic entities, the same CO_OCCURS. On the
repository's small passage corpus, and on MuSiQue's 1,890 real passages when
../shared/data is there. Then a second run changes nothing, and forgetting a document
takes its topic with it.
"""

import json
from pathlib import Path

import pytest

from tests.conftest import wipe

pytestmark = pytest.mark.e2e

SAMPLE = Path(__file__).resolve().parents[1] / "fixtures" / "eval" / "corpus.json"
MUSIQUE = Path(__file__).resolve().parents[3] / "shared" / "data" / "qa" / "musique_train_corpus.json"


def rows(server, text):
    with server.driver() as driver:
        return [dict(r) for r in driver.execute_query(text).records]


def snapshot(server) -> dict:
    mentions = {
        (r["c"], r["e"], json.dumps({k: v for k, v in r["p"].items() if k != "at"}, sort_keys=True, default=str))
        for r in rows(
            server, "MATCH (c:Chunk)-[m:MENTIONS]->(e:__Entity__) RETURN c.id AS c, e.id AS e, properties(m) AS p"
        )
    }
    topics = {
        (r["id"], json.dumps(r["p"], sort_keys=True, default=str))
        for r in rows(server, "MATCH (e:Topic) RETURN e.id AS id, properties(e) AS p")
    }
    co_occurs = {
        (r["a"], r["b"], r["n"])
        for r in rows(server, "MATCH (a)-[r:CO_OCCURS]->(b) RETURN a.id AS a, b.id AS b, r.count AS n")
    }
    return {"mentions": mentions, "topics": topics, "co_occurs": co_occurs}


def link(run_cli, *extra) -> dict:
    out = {}
    for linker in ("titles", "entities"):
        result = run_cli("link", linker, *extra, "--json")
        assert result.exit_code == 0, result.output
        out[linker] = json.loads(result.stdout)
    return out


def load(run_cli, path: Path) -> None:
    result = run_cli("load", "qa-corpus", str(path), "--corpus", "qa", "--no-embed")
    assert result.exit_code == 0, result.output


def split(source: Path, tmp_path: Path, every: int) -> tuple[Path, Path]:
    passages = json.loads(source.read_text("utf-8"))
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    a.write_text(json.dumps([p for i, p in enumerate(passages) if i % every != 1]), "utf-8")
    b.write_text(json.dumps([p for i, p in enumerate(passages) if i % every == 1]), "utf-8")
    return a, b


def unchanged(out: dict) -> bool:
    titles, entities = out["titles"], out["entities"]
    return (
        titles["mentions_created"] == titles["mentions_removed"] == titles["mentions_updated"] == 0
        and titles["topics_created"] == titles["topics_removed"] == 0
        and entities["mentions_created"] == entities["mentions_removed"] == entities["mentions_updated"] == 0
        and entities["co_occurs_created"] == entities["co_occurs_removed"] == 0
    )


def check_parity(schema, run_cli, source: Path, tmp_path: Path, every: int) -> dict:
    a, b = split(source, tmp_path, every)
    load(run_cli, a)
    assert link(run_cli)["titles"]["full"], "the first run is a full one"
    load(run_cli, b)
    out = link(run_cli)
    assert not out["titles"]["full"] and not out["entities"]["full"]
    assert out["titles"]["new_titles"] > 0 and out["entities"]["entities_changed"] > 0
    incremental = snapshot(schema)
    assert out["titles"]["topics"] < len(incremental["topics"]), "the run read the titles it touched, not all"
    assert rows(schema, "MATCH (c:PendingTitles|PendingEntities) RETURN count(c) AS n")[0]["n"] == 0
    assert unchanged(link(run_cli)), "a second run changes nothing"
    assert unchanged(link(run_cli, "--full")), "a full run after the incremental one changes nothing"
    assert snapshot(schema) == incremental

    with schema.driver() as driver:
        wipe(driver)
    assert run_cli("apply-schema").exit_code == 0
    load(run_cli, a)
    load(run_cli, b)
    link(run_cli, "--full")
    full = snapshot(schema)
    for part in ("topics", "mentions", "co_occurs"):
        assert incremental[part] == full[part], (
            part,
            sorted(incremental[part] - full[part])[:5],
            sorted(full[part] - incremental[part])[:5],
        )
    return out


def test_incremental_equals_full_on_the_sample(schema, run_cli, tmp_path):
    check_parity(schema, run_cli, SAMPLE, tmp_path, every=3)


def test_forgotten_and_renamed_documents_lose_their_topics(schema, run_cli, tmp_path):
    load(run_cli, SAMPLE)
    link(run_cli)
    doc = rows(schema, "MATCH (d:Document {title: 'Hollowmere'}) RETURN d.id AS id")[0]["id"]
    assert run_cli("forget", doc).exit_code == 0
    rows(schema, "MATCH (d:Document {title: 'Brannock'}) SET d.title = 'Brannock Vale'")
    out = link(run_cli)
    assert not out["titles"]["full"]
    names = {r["name"] for r in rows(schema, "MATCH (t:Topic) RETURN t.name AS name")}
    assert "Hollowmere" not in names and "Brannock" not in names and "Brannock Vale" in names
    assert unchanged(link(run_cli, "--full")), "the incremental run left what a full one makes"
    # A rename alone (no chunk deleted): the run reads only the titles it touches.
    rows(schema, "MATCH (d:Document {title: 'Tansy Mill'}) SET d.title = 'Tansy Mill Race'")
    out = link(run_cli)
    assert out["titles"]["topics"] == 2 and out["titles"]["topics_removed"] == 1
    names = {r["name"] for r in rows(schema, "MATCH (t:Topic) RETURN t.name AS name")}
    assert "Tansy Mill" not in names and "Tansy Mill Race" in names
    assert unchanged(link(run_cli, "--full")) and unchanged(link(run_cli))


@pytest.mark.real_data
@pytest.mark.scale
@pytest.mark.skipif(not MUSIQUE.exists(), reason="real data: ../shared/data/qa/musique_train_corpus.json is absent")
def test_incremental_equals_full_on_musique(schema, run_cli, tmp_path):
    out = check_parity(schema, run_cli, MUSIQUE, tmp_path, every=10)
    assert out["titles"]["chunks_shortlisted"] > 0 and out["entities"]["documents"] < 1890
