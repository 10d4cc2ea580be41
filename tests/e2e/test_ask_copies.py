"""A copied file is a second document with the same chunks: retrieval keeps one chunk per content
hash in every mode (the top k still full) and names the other document as "also in"."""

import shutil

import pytest

from ..conftest import REPO
from .test_ask import MODES, ask_json

pytestmark = pytest.mark.e2e
QUESTION = "Which river's silt filled the harbour of Ephesus?"
COPY = "ephesus-copy.md"  # the copy's id is file:<key of its folder>:ephesus-copy.md


def load_sample_with_a_copy(neo4j_server, folder) -> None:
    """The sample, and a copy of its Ephesus article loaded from another folder into the same corpus."""
    from click.testing import CliRunner

    from graphrag_cypher.cli.main import cli

    from ..conftest import load_sample_graph

    load_sample_graph(neo4j_server, ["load", "sample"], ["link", "phrases"])
    shutil.copy(REPO / "loaders" / "sample" / "articles" / "ephesus.md", folder / "ephesus-copy.md")
    env = dict(neo4j_server.env(), GRAPHRAG_ENV_FILE="/nonexistent.env")
    command = ["load", "files", str(folder), "--corpus", "sample"]
    result = CliRunner().invoke(cli, command, env=env)
    assert result.exit_code == 0, result.output


@pytest.fixture(scope="module")
def copied(neo4j_server, tmp_path_factory):
    folder = tmp_path_factory.mktemp("copies")
    load_sample_with_a_copy(neo4j_server, folder)
    return neo4j_server


@pytest.fixture
def graph(copied, monkeypatch):
    copied.point_env(monkeypatch)
    return copied


def content_hashes(neo4j, chunk_ids: list[str]) -> list[str]:
    with neo4j.driver() as driver:
        rows = driver.execute_query(
            "UNWIND $ids AS id MATCH (c:Chunk {id: id}) RETURN c.contentHash AS h", ids=chunk_ids
        ).records
    return [r["h"] for r in rows]


def test_the_copy_has_the_same_chunks(graph):
    with graph.driver() as driver:
        rows = driver.execute_query(
            "MATCH (c:Chunk)-[:FROM_DOCUMENT]->(d:Document) WHERE d.id ENDS WITH $copy OR d.id ENDS WITH ':ephesus.md' "
            "RETURN d.id AS d, collect(c.contentHash) AS hashes",
            copy=COPY,
        ).records
    assert len(rows) == 2 and set(rows[0]["hashes"]) == set(rows[1]["hashes"])


@pytest.mark.parametrize("mode", MODES)
def test_every_mode_returns_one_chunk_per_content_hash(graph, run_cli, mode):
    out = ask_json(run_cli, QUESTION, "--mode", mode)
    evidence = out["evidence"]
    hashes = content_hashes(graph, [e["chunk_id"] for e in evidence])
    assert len(evidence) == 5, "the top k stays full"
    assert len(set(hashes)) == len(hashes) == 5, [(e["document_id"], e["chunk_id"]) for e in evidence]
    ephesus = [e for e in evidence if (e["title"] or "").startswith("Ephesus")]
    assert ephesus, "the article is found"
    # the article's chunks come from one of its two documents: one source, not two
    assert len({e["document_id"] for e in ephesus}) == 1
    # whichever of the two documents was kept, the other is named as also holding the chunk
    for e in ephesus:
        other = {c["document_id"] for c in e["also_in"]}
        assert len(other) == 1 and e["document_id"] not in other
        assert any(d.endswith(COPY) for d in {e["document_id"], *other})
    source = next(s for s in out["sources"] if s["document_id"] == ephesus[0]["document_id"])
    assert source["also_in"] == ephesus[0]["also_in"]
    # a chunk no other document holds has no "also in"
    assert all(not e["also_in"] for e in evidence if not (e["title"] or "").startswith("Ephesus"))


def test_the_sources_list_names_the_copy(graph, run_cli):
    shown = run_cli("ask", QUESTION, "--mode", "hybrid")
    assert shown.exit_code == 0, shown.output
    sources = shown.stdout.split("Sources:")[1]
    line = next(line for line in sources.splitlines() if "Ephesus" in line)
    assert "(also in: Ephesus: A Greek and Roman City on the Aegean (file:" in line
