"""Structured questions read from the graph on a schema of a user's own: the made-up library
catalogue of bench/data/catalogue (its schema names relations and gives no phrases), loaded
beside the sample with `load records`. Gold comes from the records, never from the answers."""

import json
from pathlib import Path

import pytest

pytestmark = [pytest.mark.e2e]

CATALOGUE = Path(__file__).resolve().parents[2] / "bench" / "data" / "catalogue"
CLUBS = Path(__file__).resolve().parents[2] / "bench" / "data" / "heldout-clubs"


@pytest.fixture(scope="module")
def graph(neo4j_server):
    from ..conftest import load_sample_graph

    load_sample_graph(
        neo4j_server,
        ["load", "sample"],
        *(
            ["load", "records", str(CATALOGUE / f"{n}.json"), "--mapping", str(CATALOGUE / f"{n}.yaml")]
            for n in ("publishers", "authors", "books")
        ),
        # a second schema of its own, which also has a City
        *(
            ["load", "records", str(CLUBS / f"{n}.json"), "--mapping", str(CLUBS / f"{n}.yaml")]
            for n in ("stadiums", "clubs", "players", "coaches")
        ),
    )
    return neo4j_server


@pytest.fixture
def ask(graph, run_cli, monkeypatch):
    graph.point_env(monkeypatch)

    def run(question: str) -> dict:
        result = run_cli("ask", question, "--no-llm", "--json")
        assert result.exit_code == 0, result.output
        return json.loads(result.stdout)

    return run


def records(name: str) -> list[dict]:
    return json.loads((CATALOGUE / f"{name}.json").read_text())


def book(title: str) -> dict:
    return next(b for b in records("books") if b["title"] == title)


def names(out: dict) -> set[str]:
    return {row["name"] for row in out["rows"]}


@pytest.mark.parametrize(
    ("question", "gold"),
    [
        ("Who wrote The Salt Road?", lambda: set(book("The Salt Road")["authors"])),
        ("Who is the translator of The Tin Sextant?", lambda: {book("The Tin Sextant")["translator"]}),
        ("Who brought out Borrowed Coasts?", lambda: {book("Borrowed Coasts")["publisher"]}),
        (
            "Where was Anselm Grieve born?",
            lambda: {a["born_in"] for a in records("authors") if a["name"] == "Anselm Grieve"},
        ),
        (
            "Where are Bellweather & Finch headquartered?",
            lambda: {p["city"] for p in records("publishers") if p["name"] == "Bellweather & Finch"},
        ),
        (
            "Which books did Harrow House publish?",
            lambda: {b["title"] for b in records("books") if b["publisher"] == "Harrow House"},
        ),
        (
            "Who taught Fenwick Adeyemi?",
            lambda: {t for a in records("authors") if a["name"] == "Fenwick Adeyemi" for t in a["teachers"]},
        ),
        (
            "Where was the author of Stone Weather born?",
            lambda: {a["born_in"] for a in records("authors") if a["name"] in book("Stone Weather")["authors"]},
        ),
        (
            "Which books did Tobias Wrenfield's teacher write?",
            lambda: {
                b["title"]
                for a in records("authors")
                if a["name"] == "Tobias Wrenfield"
                for b in records("books")
                if set(a["teachers"]) & set(b["authors"])
            },
        ),
    ],
)
def test_a_schema_with_no_phrases_is_read_from_the_graph(ask, question, gold):
    out = ask(question)
    assert out["route"] == "structured", out["structured"]
    assert names(out) == gold()
    assert all(name in out["answer_with_titles"] for name in gold())


def test_a_count_is_the_number_first(ask):
    gold = sum(1 for b in records("books") if "Maren Oskvold" in b["authors"])
    out = ask("How many books did Maren Oskvold write?")
    assert out["route"] == "structured" and out["answer"].startswith(f"{gold}:")


def test_explain_lists_the_entitys_own_relations_and_the_choice(graph, run_cli, monkeypatch):
    graph.point_env(monkeypatch)
    shown = run_cli("ask", "Where are Bellweather & Finch headquartered?", "--no-llm", "--explain").stdout
    lines = shown.splitlines()
    assert any("the entity's own relations (asks for a place)" in line for line in lines)
    chosen = [line for line in lines if line.endswith("<- chosen")]
    assert len(chosen) == 1 and chosen[0].strip().startswith("BASED_IN out -> City") and "fits" in chosen[0]
    assert any(line.strip().startswith("PUBLISHED_BY in -> Book") and "wrong type" in line for line in lines)


def test_a_lookup_with_no_such_edge_says_the_graph_has_no_record(ask):
    # Nils Brevik translated books and wrote none: no AUTHOR edge into him (his TRANSLATED_BY edges are no answer)
    assert not any("Nils Brevik" in b["authors"] for b in records("books"))
    out = ask("Which books did Nils Brevik write?")
    assert out["answer"].startswith("The graph has no record of which books did Nils Brevik write")
    assert out["abstained"]["by"] == "lookup" and out["sources"] == [] and out["citations"] == []


def test_a_phrase_of_another_schema_is_not_applied(ask):
    # "played" is a phrase of the got schema's PLAYED_BY; a book has no such relation
    out = ask("Who played a part in The Salt Road?")
    assert "PLAYED_BY" not in json.dumps(out["structured"])


def clubs(name: str) -> list[dict]:
    return json.loads((CLUBS / f"{name}.json").read_text())


def test_a_phrase_is_its_own_schemas_where_two_schemas_share_a_type(ask):
    # both schemas have a City; "based in" is the catalogue's BASED_IN (publishers), not the clubs'
    out = ask("Which clubs are based in Brannport?")
    assert out["abstained"] is None and "BASED_IN" not in json.dumps(out["structured"])
    assert names(out) == {c["name"] for c in clubs("clubs") if c["city"] == "Brannport"}


def test_a_word_of_the_past_names_the_relation_in_the_past(ask):
    player = next(p for p in clubs("players") if p.get("former_clubs") and p["club"] not in p["former_clubs"])
    out = ask(f"Which clubs did {player['name']} play for before?")
    assert names(out) == set(player["former_clubs"])
    now = ask(f"Which team does {player['name']} play for?")
    assert names(now) == {player["club"]}


def test_x_s_club_is_the_first_hop_of_a_chain(ask):
    player = clubs("players")[0]
    league = next(c["league"] for c in clubs("clubs") if c["name"] == player["club"])
    out = ask(f"Which league does {player['name']}'s club play in?")
    assert out["route"] == "structured" and names(out) == {league}
