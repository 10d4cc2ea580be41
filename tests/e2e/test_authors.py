"""Authors as people: (:Person)-[:AUTHORED]->(:Document) from the files' metadata, one person
across documents whatever form of the name each file writes, kept right by loads, re-loads and
forget; `link entities` links the person where the text names them in full; `ask` answers
who wrote what from the edges, citing the documents by title."""

import json
import os
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e

ISAW = Path(os.environ.get("GRAPHRAG_SHARED_DATA", Path(__file__).resolve().parents[3] / "shared" / "data")) / (
    "isaw-papers"
)

PAGE = """<!DOCTYPE html>
<html lang="en"><head><title>{title}</title>
<meta name="DC.title" content="{title}"/>
{metas}
</head><body><h1>{title}</h1>
{byline}
<p>{body}</p>
</body></html>
"""


def page(title: str, authors: list[str], body: str, rdfa: list[str] = ()) -> str:
    metas = "\n".join(f'<meta name="DC.creator" content="{a}"/>' for a in authors)
    byline = " and ".join(f'<span rel="dcterms:creator"><span property="foaf:name">{a}</span></span>' for a in rdfa)
    return PAGE.format(title=title, metas=metas, byline=f"<h2>{byline}</h2>" if byline else "", body=body)


BODY_A = (
    "Amphorae from the harbour of Carrow were counted over three seasons. The survey asks how "
    "coarse wares travelled along the coast and who paid for their carriage."
)
BODY_B = (
    "Linked data for coins: each issue gets a stable address. As Ana Lima argued before, a "
    "catalogue is only useful when others can point at its entries. Lima's scheme is used here."
)
BODY_C = "A note on lamps from the villa at Sarn, with a list of the stamps read so far and their makers."


@pytest.fixture
def folder(tmp_path):
    root = tmp_path / "papers"
    root.mkdir()
    (root / "amphorae.html").write_text(page("Amphorae of Carrow", ["Ana Lima", "Bo Chen"], BODY_A))
    (root / "coins.xhtml").write_text(page("Linked Coins", ["Lima, Ana"], BODY_B))
    # no meta tags: the authors are in the RDFa byline only, one as initials
    (root / "lamps.html").write_text(page("Lamps of Sarn", [], BODY_C, rdfa=["A. Lima", "Cy Rowe"]))
    return root


def rows(server, text: str, **params) -> list[dict]:
    with server.driver() as driver, driver.session() as session:
        return session.run(text, params).data()


def authored(server) -> dict[str, list[str]]:
    found = rows(
        server,
        "MATCH (p:Person)-[:AUTHORED]->(d:Document) WITH p, d ORDER BY d.title "
        "RETURN p.id AS id, collect(d.title) AS titles ORDER BY id",
    )
    return {r["id"]: r["titles"] for r in found}


def load(run_cli, *args: str) -> dict:
    result = run_cli("load", "files", *args, "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_one_person_across_documents_and_name_forms(schema, run_cli, folder):
    load(run_cli, str(folder))
    assert authored(schema) == {
        "person:ana lima": ["Amphorae of Carrow", "Lamps of Sarn", "Linked Coins"],
        "person:bo chen": ["Amphorae of Carrow"],
        "person:cy rowe": ["Lamps of Sarn"],
    }
    person = rows(schema, "MATCH (p:Person {id: 'person:ana lima'}) RETURN p {.*} AS p, labels(p) AS labels")[0]
    assert sorted(person["labels"]) == ["Person", "__Entity__"]
    assert {k: person["p"][k] for k in ("name", "normName", "type", "scope", "canonical", "source")} == {
        "name": "Ana Lima",
        "normName": "ana lima",
        "type": "Person",
        "scope": "global",
        "canonical": True,
        "source": "metadata",
    }
    edge = rows(schema, "MATCH ()-[r:AUTHORED]->() RETURN r.source AS source, r.at IS NOT NULL AS at LIMIT 1")[0]
    assert edge == {"source": "metadata", "at": True}


def test_a_second_load_changes_nothing(schema, run_cli, folder):
    load(run_cli, str(folder))
    before = rows(schema, "MATCH (p:Person)-[r:AUTHORED]->(d) RETURN p.id AS p, d.id AS d, r.at AS at ORDER BY p, d")
    again = load(run_cli, str(folder))
    assert again["documents"]["unchanged"] == 3
    after = rows(schema, "MATCH (p:Person)-[r:AUTHORED]->(d) RETURN p.id AS p, d.id AS d, r.at AS at ORDER BY p, d")
    assert after == before


def test_changed_authors_drop_the_stale_edge_and_the_person_left_alone(schema, run_cli, folder):
    load(run_cli, str(folder))
    (folder / "amphorae.html").write_text(page("Amphorae of Carrow", ["Ana Lima", "Dee Park"], BODY_A + " Revised."))
    load(run_cli, str(folder))
    people = authored(schema)
    assert "person:bo chen" not in people  # no edge left and nothing else: the person is gone
    assert people["person:dee park"] == ["Amphorae of Carrow"]
    assert len(people["person:ana lima"]) == 3
    # a file that names no author any more keeps neither edges nor the old list
    (folder / "lamps.html").write_text(page("Lamps of Sarn", [], BODY_C + " Revised."))
    load(run_cli, str(folder))
    assert "person:cy rowe" not in authored(schema)
    assert rows(schema, "MATCH (d:Document {title: 'Lamps of Sarn'}) RETURN d.authors AS a") == [{"a": None}]


def test_forget_removes_the_edges_and_the_people_only_it_had(schema, run_cli, folder):
    load(run_cli, str(folder))
    doc = rows(schema, "MATCH (d:Document {title: 'Amphorae of Carrow'}) RETURN d.id AS id")[0]["id"]
    result = run_cli("forget", doc, "--json")
    assert result.exit_code == 0, result.output
    people = authored(schema)
    assert "person:bo chen" not in people
    assert rows(schema, "MATCH (p:Person {id: 'person:bo chen'}) RETURN p") == []
    assert people["person:ana lima"] == ["Lamps of Sarn", "Linked Coins"]


def ask(run_cli, question: str) -> dict:
    result = run_cli("ask", question, "--json", "--no-llm")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


@pytest.mark.parametrize(
    "question",
    [
        "Which articles did Ana Lima write?",
        "What did Ana Lima write?",
        "Which papers were written by Lima, Ana?",
        "How many papers has Ana Lima written?",
        "Which documents did A. Lima author?",
        "List the articles by Lima",
    ],
)
def test_ask_which_documents_a_person_wrote_cites_them_by_title(schema, run_cli, folder, question):
    load(run_cli, str(folder))
    out = ask(run_cli, question)
    assert out["route"] == "structured", out["structured"]
    assert out["structured"]["family"] in ("authored", "count_authored")
    gold = {"Amphorae of Carrow", "Linked Coins", "Lamps of Sarn"}
    assert {c["title"] for c in out["citations"]} == gold
    assert {r["title"] for r in out["rows"]} == gold
    assert "3" in out["answer"] and all(f"[{r['cite']}]" in out["answer"] for r in out["rows"])


def test_ask_who_wrote_a_document(schema, run_cli, folder):
    load(run_cli, str(folder))
    out = ask(run_cli, "Who wrote Amphorae of Carrow?")
    assert out["route"] == "structured" and out["structured"]["family"] == "authors_of", out["structured"]
    assert {r["name"] for r in out["rows"]} == {"Ana Lima", "Bo Chen"}
    assert [c["title"] for c in out["citations"]] == ["Amphorae of Carrow"]
    assert out["answer"] == f"“Amphorae of Carrow” [{out['rows'][0]['cite']}] was written by Ana Lima and Bo Chen."
    assert out["answer_with_titles"] == "“Amphorae of Carrow” was written by Ana Lima and Bo Chen."
    # an unknown author or title is not answered from AUTHORED
    other = ask(run_cli, "Which articles did Zed Quill write?")
    assert (other["structured"] or {}).get("family") not in ("authored", "count_authored", "authors_of")


def test_link_entities_links_a_person_by_full_name_only(schema, run_cli, folder):
    load(run_cli, str(folder))
    result = run_cli("link", "entities", "--json")
    assert result.exit_code == 0, result.output
    mentions = rows(
        schema,
        "MATCH (c:Chunk)-[m:MENTIONS]->(p:Person) MATCH (c)-[:FROM_DOCUMENT]->(d) "
        "RETURN d.title AS title, p.id AS person, m.matched AS matched",
    )
    # "Linked Coins" names Ana Lima in full once, and "Lima" alone: only the full name is linked
    assert [(m["title"], m["person"]) for m in mentions] == [("Linked Coins", "person:ana lima")]


def test_backfill_from_stored_author_lists(schema, run_cli, folder):
    load(run_cli, str(folder))
    rows(schema, "MATCH (p:Person) DETACH DELETE p")  # a graph loaded before authors were people
    result = run_cli("link", "entities", "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["authored"] == 5  # Lima and Chen, Lima, Lima (as "A. Lima") and Rowe
    assert authored(schema)["person:ana lima"] == ["Amphorae of Carrow", "Lamps of Sarn", "Linked Coins"]
    again = run_cli("link", "entities", "--json")
    assert json.loads(again.stdout)["authored"] == 0


@pytest.mark.real_data
@pytest.mark.skipif(not ISAW.is_dir(), reason="the ISAW Papers articles (shared data) are not here")
def test_isaw_sebastian_heath(schema, run_cli, tmp_path):
    # the articles Sebastian Heath (co-)wrote, by their own metadata: DC.creator or RDFa dcterms:creator
    picked = ["10", "20-13", "22-5", "7/heath", "7/elliott-heath-muccigrosso", "7/horne", "20-2"]
    root = tmp_path / "isaw"
    for name in picked:
        target = root / name.replace("/", "-")
        target.mkdir(parents=True)
        (target / "index.xhtml").write_bytes((ISAW / name / "index.xhtml").read_bytes())
    load(run_cli, str(root), "--no-embed")
    people = authored(schema)
    assert len(people["person:sebastian heath"]) == 5
    assert len(people["person:ryan horne"]) == 2  # 7/horne (RDFa only) and 20-2 (meta tags)
    out = ask(run_cli, "Which articles did Sebastian Heath write?")
    assert out["structured"]["family"] == "authored", out["structured"]
    assert len(out["citations"]) == 5
    assert any("Towards a Journal as Linked Open Data" in c["title"] for c in out["citations"])


def test_the_evidence_graph_draws_mentioned_entities_and_authors(schema, run_cli, folder):
    from graphrag_cypher.config import load_settings
    from graphrag_cypher.db import connect
    from graphrag_cypher.server.engine import evidence_graph

    load(run_cli, str(folder))
    assert run_cli("link", "entities").exit_code == 0
    chunks = rows(
        schema,
        "MATCH (c:Chunk)-[:FROM_DOCUMENT]->(d:Document) WHERE d.title IN ['Amphorae of Carrow', 'Linked Coins'] "
        "RETURN c.id AS id, d.id AS doc, d.title AS title",
    )
    with connect(load_settings()) as graph:
        drawn = evidence_graph(graph, {"evidence": [{"chunk_id": c["id"]} for c in chunks]})
    nodes = {n["id"]: n for n in drawn["nodes"]}
    assert nodes["person:bo chen"] == {"id": "person:bo chen", "label": "Person", "name": "Bo Chen"}
    doc = {c["title"]: c["doc"] for c in chunks}
    coins = next(c["id"] for c in chunks if c["title"] == "Linked Coins")
    edges = {(e["source"], e["type"], e["target"]) for e in drawn["edges"]}
    assert {
        ("person:ana lima", "AUTHORED", doc["Amphorae of Carrow"]),
        ("person:bo chen", "AUTHORED", doc["Amphorae of Carrow"]),
        ("person:ana lima", "AUTHORED", doc["Linked Coins"]),
        (coins, "MENTIONS", "person:ana lima"),  # the entity the evidence chunk names, beside it
    } <= edges
