"""The page's evidence graph (GET /graph of a served answer) leaves out an entity below the
confidence cut unless the question asks for its type, and draws the places linked to the evidence."""

import pytest

from ..test_entity_faces import LONDINIUM, PENGUIN, build_faces_graph
from .conftest import start_server, stop_server

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def served(neo4j_server, tmp_path_factory):
    build_faces_graph(neo4j_server)
    served = start_server(neo4j_server, tmp_path_factory.mktemp("faces"), None)
    yield served
    stop_server(served)


def _drawn(http, question: str) -> set[str]:
    out = http.post("/chat", json={"question": question, "llm": False, "about": LONDINIUM, "judge": "off"})
    assert out.status_code == 200, out.text
    answer = out.json()
    assert answer["evidence"], answer
    graph = http.get("/graph", params={"answer": answer["answer_id"]})
    assert graph.status_code == 200, graph.text
    return {n["id"] for n in graph.json()["nodes"]}


def test_the_page_draws_places_and_leaves_out_a_low_confidence_entity(served):
    with served.client() as http:
        drawn = _drawn(http, "What did the museum catalogue list?")
        assert LONDINIUM in drawn and PENGUIN not in drawn
        assert PENGUIN in _drawn(http, "Which organisations did the museum catalogue list?")
        around = http.get("/graph", params={"id": PENGUIN, "limit": 5}).json()
        assert around["nodes"][0]["id"] == PENGUIN  # asked for by id: drawn
