"""The six questions about the graph itself on the real data (the GoT records, the Grimm tales,
the ISAW articles with their place links), asked in the page in Chromium: each answer's table
holds the rows `/chat` gives, and a screenshot of each goes to tests/output/."""

import pytest

from ..test_structured_real_data import load_real_graph
from .conftest import KEY, start_server, stop_server
from .test_page import OUTPUT, page, until  # noqa: F401  (the browser fixture, on this module's server)

pytestmark = [pytest.mark.e2e, pytest.mark.real_data]

QUESTIONS = [
    "Who killed Eddard Stark?",
    "Who killed Jon Snow?",
    "Which characters belong to House Tully?",
    "How many people did Arya Stark kill?",
    "Which ISAW articles mention Alexandria?",
    "How many of the tales mention a witch?",
]


@pytest.fixture(scope="module")
def served(neo4j_server, tmp_path_factory):
    load_real_graph(neo4j_server)
    served = start_server(neo4j_server, tmp_path_factory.mktemp("serve-real-structured"), KEY)
    yield served
    stop_server(served)


def test_the_six_questions_in_the_page(served, page):  # noqa: F811
    for number, question in enumerate(QUESTIONS, 1):
        with served.client() as http:
            response = http.post("/chat", json={"question": question})
        assert response.status_code == 200, response.text
        expected = response.json()
        assert expected["route"] == "structured", (question, expected["structured"])
        page.fill("#question", question)
        page.click("#send")
        until(
            page,
            lambda n=number: (
                page.locator(".turn").count() == n and page.locator(".turn").last.locator("tbody tr").count()
            ),
            seconds=240,
        )
        turn = page.locator(".turn").last
        shown = turn.locator("table.rows td.name").all_inner_texts()
        assert shown == [r.get("title") or r["name"] for r in expected["rows"]], question
        cites = turn.locator("table.rows td.cite button.citation").count()
        assert cites == sum(1 for r in expected["rows"] if r.get("cite")), question
        OUTPUT.mkdir(parents=True, exist_ok=True)
        turn.screenshot(path=str(OUTPUT / f"serve-page-real-structured-{number}.png"))
