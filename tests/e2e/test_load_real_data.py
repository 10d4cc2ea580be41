"""The real data sets in ../shared/data, loaded twice: counts, known titles, then nothing changes.

Vectors are left out here (--no-embed) to keep the suite fast; embedding is covered by
test_load.py and measured by `make bench`.
"""

import json
import os
from pathlib import Path

import pytest

pytestmark = [pytest.mark.e2e, pytest.mark.real_data]

DATA = Path(os.environ.get("GRAPHRAG_DATA_DIR") or Path(__file__).resolve().parents[2].parent / "shared" / "data")


def real(relative: str) -> Path:
    path = DATA / relative
    if not path.exists():
        pytest.skip(f"real data not available: {path} (set GRAPHRAG_DATA_DIR to the shared data folder)")
    return path


def load_twice(run_cli, *args):
    first = run_cli("load", *args, "--no-embed", "--json")
    assert first.exit_code in (0, 3), first.output
    second = run_cli("load", *args, "--no-embed", "--json")
    out1, out2 = json.loads(first.stdout), json.loads(second.stdout)
    assert out2["documents"]["created"] == out2["documents"]["updated"] == 0
    assert out2["chunks"] == {"created": 0, "deleted": 0, "embedded": 0, "vectors_reused": 0}
    assert out2["documents"]["unchanged"] == out1["documents"]["created"]
    return out1


def titles(neo4j, label: str) -> set[str]:
    with neo4j.driver() as driver:
        return {r["t"] for r in driver.execute_query(f"MATCH (d:{label}) RETURN d.title AS t").records}


def test_grimm(schema, run_cli):
    out = load_twice(run_cli, "stories", str(real("tales/grimm-pg2591.txt")), "--corpus", "grimm")
    assert 60 <= out["documents"]["created"] <= 64
    assert {"The Golden Bird", "Hansel and Gretel", "Rumpelstiltskin"} <= titles(schema, "Story")


def test_isaw_articles(schema, run_cli):
    out = load_twice(run_cli, "files", str(real("isaw-papers")), "--ext", ".xhtml", "--corpus", "isaw")
    assert out["documents"]["created"] == 77 and out["documents"]["failed"] == 0
    with schema.driver() as driver:
        licences = driver.execute_query("MATCH (d:Document {corpus: 'isaw'}) RETURN d.license AS l").records
    assert sum(1 for r in licences if r["l"] and "creativecommons.org" in r["l"]) >= 76


def test_awoiaf_export(schema, run_cli):
    out = load_twice(run_cli, "mediawiki", str(real("got/awoiaf-chapters-export.xml")), "--corpus", "awoiaf")
    assert out["documents"]["created"] == 354
    with schema.driver() as driver:
        n = driver.execute_query("MATCH (d:WikiPage) WHERE d.infoboxType IS NOT NULL RETURN count(d) AS n").records[0][
            "n"
        ]
    assert n == 352


def test_enwiki_sample(schema, run_cli):
    out = load_twice(run_cli, "mediawiki", str(real("wiki/enwiki-sample-pages-articles.xml")), "--corpus", "enwiki")
    assert out["documents"]["created"] == 106
    assert {"Anarchism", "Abraham Lincoln", "Aristotle"} <= titles(schema, "WikiPage")
    with schema.driver() as driver:
        aliased = driver.execute_query("MATCH (d:WikiPage) WHERE size(d.aliases) > 0 RETURN count(d) AS n").records[0][
            "n"
        ]
    assert aliased > 0, "redirects become aliases of the pages they point at"


def test_debian_reference_pdf(schema, run_cli):
    out = load_twice(run_cli, "files", str(real("pdf/debian-reference.pdf")))
    assert out["documents"]["created"] == 1
    with schema.driver() as driver:
        pages = driver.execute_query(
            "MATCH (c:Chunk) RETURN min(c.page) AS lo, max(c.page) AS hi, count(c) AS n"
        ).records[0]
    assert pages["lo"] >= 1 and pages["hi"] >= 250 and pages["n"] > 300


def test_musique_corpus(schema, run_cli):
    out = load_twice(run_cli, "qa-corpus", str(real("qa/musique_train_corpus.json")), "--corpus", "musique")
    assert out["documents"]["created"] == 1890
