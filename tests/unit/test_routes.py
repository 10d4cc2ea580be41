"""The route registry as the faces use it: every route renders its own keys of an answer's JSON
(`--explain` lines, notes, the subgraph), and an Answer's JSON holds every route's keys whichever
route answered. The routes answering real questions are tests/e2e/test_ask*.py."""

from graphrag_cypher.retrieval.routes import (
    ROUTES,
    RouteTrace,
    drawn_fields,
    empty_fields,
    explain_lines,
    note_lines,
    route_fields,
)
from graphrag_cypher.retrieval.routes.relation import PathTrace

PATH = {
    "kind": "typed",
    "nodes": [{"id": "T1::E1", "name": "Reynold", "type": "CHARACTER"}, {"id": "T1::E4", "name": "Brannock"}],
    "relationships": [{"start": "T1::E1", "type": "DEFEATS", "end": "T1::E4"}],
}
PLAN = {
    "family": "list",
    "reason": "the question asks for the children of Osgar Varn",
    "hops": [{"relation": "CHILD_OF", "direction": "in", "matched_by": "phrase", "phrase": "children", "score": 1.0}],
    "entity": {"id": "got:osgar varn", "name": "Osgar Varn", "type": "Character", "chunks": 2},
    "others": [],
    "scope": {},
    "count": 1,
    "method": "template",
    "total": 1,
}
ROW = {"id": "got:edric varn", "name": "Edric Varn", "type": "Character", "relation": "CHILD_OF", "cite": "R1"}


def test_the_registry_fills_every_routes_keys_once():
    assert empty_fields() == {"global": None, "communities": [], "paths": [], "structured": None, "rows": []}
    assert route_fields({"paths": [PATH], "answer": "x"}) == dict(empty_fields(), paths=[PATH])
    assert all(set(route.fields) <= set(empty_fields()) for route in ROUTES)
    assert all(set(route.drawn) <= set(route.fields) for route in ROUTES)
    # what GET /graph keeps of an answer: only the keys a route draws from
    assert drawn_fields({"communities": [{"id": "c1"}], "paths": [PATH]}) == {
        "paths": [PATH],
        "structured": None,
        "rows": [],
    }


def test_each_route_explains_its_own_keys_of_any_answer():
    assert explain_lines({}) == [] and note_lines({}) == []
    assert explain_lines({"paths": [PATH]}) == [
        "  path 1 (typed, 1 step(s)): Reynold (T1::E1) -[DEFEATS]-> Brannock (T1::E4)"
    ]
    lines = explain_lines({"structured": PLAN, "rows": [ROW]})
    assert lines[0] == "  structured: the question asks for the children of Osgar Varn"
    assert "    relation CHILD_OF in (matched by phrase 'children', score 1.0)" in lines
    assert lines[-1] == "      Edric Varn [R1] got:edric varn"
    # a family whose entity has no chunk count (who wrote what) explains too: every answer's JSON
    # carries its trace, so a missing key would fail the answer itself
    authored = {"family": "authored", "reason": "r", "entity": {"id": "person:ana lima", "name": "Ana Lima"}}
    assert explain_lines({"structured": authored})[:2] == [
        "  structured: r",
        "    entity Ana Lima (person:ana lima, Entity)",
    ]
    declined = {"global": {"family": None, "reason": "no community level"}, "structured": {"reason": "no relation"}}
    assert explain_lines(declined) == [
        "  global: not taken (no community level)",
        "  structured: not taken (no relation)",
    ]
    assert note_lines(declined) == ["(not answered from the whole corpus: no community level)"]
    refused = {"structured": {"family": None, "reason": "r", "refused": "read mode refuses CREATE"}}
    assert note_lines(refused) == ["text-to-Cypher: read mode refuses CREATE"]


def test_routes_draw_what_their_answers_hold_beyond_chunks():
    nodes: dict = {}
    edges: dict = {}
    for route in ROUTES:
        route.draw({"paths": [PATH], "structured": PLAN, "rows": [ROW]}, nodes, edges, 25)
    assert set(nodes) == {"T1::E1", "T1::E4", "got:osgar varn", "got:edric varn"}
    assert set(edges) == {("T1::E1", "DEFEATS", "T1::E4"), ("got:edric varn", "CHILD_OF", "got:osgar varn")}
    few: dict = {}
    for route in ROUTES:
        route.draw({"structured": PLAN, "rows": [ROW, dict(ROW, id="got:x", name="X")]}, few, {}, 2)
    assert len(few) == 2  # the node bound holds


def test_a_path_trace_gives_each_node_its_context_id():
    from graphrag_cypher.retrieval.answer import Context

    trace = PathTrace("relation", {"paths": [PATH]})
    done = trace.complete(Context("", {}, {"T1::E1": "T1::E1"}))
    assert isinstance(done, RouteTrace) and [n["cite"] for n in done.to_dict()["paths"][0]["nodes"]] == ["T1::E1", None]
    assert "cite" not in PATH["nodes"][0]  # the route's own paths are left as they were
