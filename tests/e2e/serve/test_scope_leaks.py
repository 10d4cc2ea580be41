"""Nothing of one corpus reaches a key of another, on any read face of a real `graphrag serve`:
two corpora (`alpha`, `beta`) that share a place (Ghent), their NER entities, shared phrases and
communities, a read key for each, and the adversarial set of `bench/leaks.py` sent with alpha's key
(questions naming beta's people, `about` one of them, every mode and route, streams, `/v1`, every
MCP read tool, `/graph` from the shared place, `/documents`, `/communities`, beta's remembered
answer). The LLM echoes its whole prompt, so a passage of beta in any context would show."""

from __future__ import annotations

import tempfile
from pathlib import Path

import httpx
import pytest

from bench import leaks
from bench.common import bench_neo4j, free_port, graphrag_env

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def world():
    with bench_neo4j() as (settings, graph), tempfile.TemporaryDirectory() as tmp:
        env = graphrag_env(settings)
        leaks.build(env, Path(tmp))
        keys = leaks.add_keys(env)  # alpha, alpha+gamma (two corpora: the corpora filter alone), beta
        server = leaks.serve(env, Path(tmp), free_port(), llm=True)
        try:
            yield {
                "url": server["url"],
                "keys": keys,
                "admin": server["admin"],
                "graph": graph,
                "markers": leaks.markers(graph),
                "ids": leaks.beta_ids(graph),
                "llm": server["llm"],
                "documents": {  # each corpus's document and chunk ids
                    corpus: {
                        node_id
                        for row in graph.read("bench/leaks_corpus_nodes", corpus=corpus)
                        for node_id in [row["id"], *row["chunks"]]
                    }
                    for corpus in ("alpha", "beta")
                },
            }
        finally:
            server["process"].terminate()
            server["process"].wait(timeout=30)
            server["llm"].close()


def client(world, who: str) -> httpx.Client:
    key = world["admin"] if who == "admin" else world["keys"][who]
    return httpx.Client(base_url=world["url"], headers={"Authorization": f"Bearer {key}"}, timeout=180)


@pytest.mark.parametrize("key", ["alpha", "alpha+gamma"])
def test_no_probe_of_a_key_of_other_corpora_shows_anything_of_beta(world, key):
    assert len(world["markers"]) >= 30  # beta's ids, titles, names and words are known
    assert world["ids"]["entity"] and world["ids"]["shared"] and world["ids"]["community"]
    report = leaks.run_probes(
        world["url"], world["keys"][key], world["keys"]["beta"], world["markers"], world["ids"], world["llm"]
    )
    leaked = [(r["face"], r["leaks"]) for r in report["results"] if r["leaks"]]
    assert leaked == []
    # the faces still answer: most probes show alpha's own names, and the LLM was asked (its
    # prompts searched for beta too)
    answered = [r for r in report["results"] if r["alpha"]]
    assert len(answered) >= 0.6 * len(report["results"]), [(r["face"], r["status"]) for r in report["results"]]
    assert sum(r["face"] == "LLM prompts" for r in report["results"]) >= 10


def test_expansion_from_a_shared_place_stays_in_the_keys_corpus(world):
    shared = world["ids"]["shared"]
    with client(world, "admin") as admin, client(world, "alpha") as alpha, client(world, "beta") as beta:
        every = admin.get("/graph", params={"id": shared, "limit": 60}).json()
        mine = alpha.get("/graph", params={"id": shared, "limit": 60}).json()
        theirs = beta.get("/graph", params={"id": shared, "limit": 60}).json()
    ids = lambda g: {n["id"] for n in g["nodes"]}  # noqa: E731
    of = lambda g, corpus: {i for i in ids(g) if i.endswith(".txt") or "::" in i} & world["documents"][corpus]  # noqa: E731
    assert of(every, "alpha") and of(every, "beta")  # the admin's view reaches both corpora's chunks
    assert of(mine, "alpha") and not of(mine, "beta")
    assert of(theirs, "beta") and not of(theirs, "alpha")
    assert shared in ids(mine) and shared in ids(theirs)


def test_an_answer_is_drawn_only_for_the_key_that_asked_it(world):
    with client(world, "beta") as beta:
        answer_id = beta.post("/chat", json={"question": "Who carved the amber?"}).json()["answer_id"]
        assert beta.get("/graph", params={"answer": answer_id}).status_code == 200
    with client(world, "alpha") as alpha:
        refused = alpha.get("/graph", params={"answer": answer_id})
        assert refused.status_code == 404 and "no answer" in refused.json()["error"]
    with client(world, "admin") as admin:
        assert admin.get("/graph", params={"answer": answer_id}).status_code == 200


def test_communities_and_schema_are_the_keys_own(world):
    with client(world, "alpha") as alpha, client(world, "admin") as admin:
        listed = alpha.get("/communities").json()
        assert listed["communities"] and all(c["corpora"] == ["alpha"] for c in listed["communities"])
        assert listed["state"]["counts"] is None  # the whole graph's count is not the key's to know
        assert alpha.get(f"/communities/{world['ids']['community']}").status_code == 404
        assert admin.get(f"/communities/{world['ids']['community']}").status_code == 200
        schema = leaks.send(alpha, leaks.mcp_probe("schema", {}), {})
    # the counts of alpha's corpus alone: its three documents, not the six of the graph
    assert '\\"Document\\":3' in schema.text.replace(" ", "") or '"Document":3' in schema.text.replace(" ", "")


def test_what_a_scoped_key_is_told_of_a_missing_term_is_no_sign_of_another_corpus(world):
    """A word only beta holds and a word no corpus holds get the same abstention for alpha's key:
    the answer is no oracle of what another corpus mentions."""
    with client(world, "alpha") as alpha:
        told = {
            word: alpha.post("/chat", json={"question": f"What is {word}?", "llm": False}).json()
            for word in ("Quorrith", "Zembrakt")
        }
    seen = {
        word: (
            r["abstained"]["by"],
            r["abstained"]["reason"].replace(word, "WORD"),
            r["answer"].replace(word, "WORD"),
            sorted(c["document_id"] for c in r["abstained"]["closest"]),
        )
        for word, r in told.items()
    }
    assert seen["Quorrith"] == seen["Zembrakt"]


def test_the_page_with_a_scoped_key_shows_nothing_of_beta(world):
    """The page as a user of alpha's key sees it: an answer about the shared place, its evidence
    graph, the place clicked open (its neighbours drawn) and the themes view; neither the page's
    text nor the graph's nodes hold anything of beta, and the answer and graph show alpha."""
    from ...browser import browser_context
    from .test_page import OUTPUT, click_node, drawn, until

    with browser_context(1100, 1300) as context:
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.goto(world["url"] + "/")
        page.click("#settings summary")
        page.fill("#key", world["keys"]["alpha"])
        page.dispatch_event("#key", "change")
        page.fill("#question", f"Who travelled to {leaks.SHARED}?")
        page.click("#send")
        turn = page.locator(".turn").last
        until(page, lambda: turn.get_attribute("data-answer"), 240)
        until(page, lambda: drawn(page)["answer"] == turn.get_attribute("data-answer"))
        before = drawn(page)["ids"]
        shared = world["ids"]["shared"]
        assert shared in before, before  # the place the evidence names is drawn: a click draws its neighbours
        click_node(page, shared)
        # the page names the node it drew the neighbours of (all of them may be drawn already)
        until(page, lambda: page.locator("#graph-node").inner_text().endswith(f"({shared})"))
        shown = drawn(page)["ids"]
        page.click("#themes summary")  # the themes view: alpha's communities
        page.wait_for_selector("#themes-list ul.communities li", timeout=60_000)
        text = page.locator("body").inner_text()
        OUTPUT.mkdir(exist_ok=True)
        page.screenshot(path=str(OUTPUT / "page-scoped-key.png"), full_page=True)  # to read by eye
        assert not errors, errors
    seen = leaks.leaks_in(text + " " + " ".join(shown), f"Who travelled to {leaks.SHARED}?", world["markers"])
    assert seen == []
    assert not set(shown) & world["documents"]["beta"]
    assert set(shown) & world["documents"]["alpha"] and any(n in text.lower() for n in leaks.ALPHA_NAMES)
