"""Retrieval pieces that need no database: reciprocal-rank fusion and the typed answer."""

import pytest


def _ev(chunk_id, document_id="d"):
    from graphrag_cypher.retrieval.base import Evidence

    return Evidence(chunk_id, document_id, None, None, "", 0.0, [chunk_id])


def test_fusion_order_depends_on_rrf_k():
    from graphrag_cypher.retrieval.ppr import fuse

    # A leads one list only; B is third in both: a flat fusion (large k) prefers agreement,
    # a sharp one (small k) the single top rank
    first, second = [_ev("A"), _ev("x"), _ev("B")], [_ev("y"), _ev("z"), _ev("B")]
    assert [e.chunk_id for e in fuse([(1.0, first), (1.0, second)], 60)][0] == "B"
    assert [e.chunk_id for e in fuse([(1.0, first), (1.0, second)], 0)][0] == "A"
    fused = {e.chunk_id: e for e in fuse([(1.0, first), (1.0, second)], 60)}
    assert abs(fused["B"].score - 2 / 63) < 1e-12 and fused["B"].via == ["B", "B"]


def test_every_mode_has_its_module_and_the_interface():
    from neo4j_graphrag.retrievers.base import Retriever as GraphragRetriever

    from graphrag_cypher.errors import GraphragError
    from graphrag_cypher.retrieval.modes import ANSWER_MODES, DEFAULT_MODE, GLOBAL_MODE, MODES, retriever_class
    from graphrag_cypher.retrieval.retriever import Retriever

    assert DEFAULT_MODE in MODES and GLOBAL_MODE in ANSWER_MODES and GLOBAL_MODE not in MODES
    assert set(MODES) == {"vector", "fulltext", "hybrid", "graph", "ppr"}
    for mode in MODES:
        cls = retriever_class(mode)
        assert issubclass(cls, Retriever) and issubclass(cls, GraphragRetriever) and cls.name == mode
        assert cls.__module__ == f"graphrag_cypher.retrieval.{mode}"
    with pytest.raises(GraphragError, match="unknown mode 'global'"):
        retriever_class(GLOBAL_MODE)  # a route, not a retriever


@pytest.mark.process
def test_the_mode_registry_loads_no_retriever():
    """Reading the registry (what --help and GET /modes do) imports no retriever and no driver."""
    import subprocess
    import sys

    code = (
        "import sys; import graphrag_cypher.retrieval.modes as m; "
        "print(sorted(n for n in sys.modules if n.startswith(('neo4j', 'graphrag_cypher.retrieval.'))))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "['graphrag_cypher.retrieval.modes']"


def test_answer_to_dict_keeps_the_json_keys():
    from graphrag_cypher.retrieval.answer import sources_for
    from graphrag_cypher.retrieval.base import Analysis, Filters
    from graphrag_cypher.retrieval.qa import Answer, LLMUse

    evidence = [_ev("c1", "story:T2"), _ev("c2", "doc:x")]
    sources = sources_for(evidence)
    analysis = Analysis("q?", "q?", ["q"], [], None, "en", Filters(corpus="sample"))
    answer = Answer(
        "q?",
        "x [D1]",
        "x [Title]",
        sources[:1],
        ["Z9"],
        sources,
        evidence,
        "graph",
        "search",
        analysis,
        LLMUse(False, None, "note"),
        "CONTEXT",
        "graph LR",
        {"total_ms": 1.0},
    )
    out = answer.to_dict()
    assert list(out) == [
        "question",
        "answer",
        "answer_with_titles",
        "citations",
        "dropped_citations",
        "sources",
        "evidence",
        "mode",
        "route",
        "global",
        "communities",
        "paths",
        "structured",
        "rows",
        "filters",
        "entities",
        "ambiguous",
        "keywords",
        "language",
        "llm",
        "convert",
        "rerank",
        "gate",
        "web",
        "abstained",
        "trace",
        "mermaid",
        "timings_ms",
    ]
    assert out["abstained"] is None  # answered
    # every document is cited by its place, a story as any other
    assert [e["source"] for e in out["evidence"]] == ["D1", "D2"]
    assert out["citations"] == [
        {"id": "D1", "document_id": "story:T2", "title": None, "uri": None, "web": False, "also_in": []}
    ]
    assert out["filters"]["corpus"] == "sample" and out["llm"] == {
        "used": False,
        "model": None,
        "note": "note",
        "backend": None,
        "device": None,
        "gpu_layers": None,
        "device_reason": None,
    }
    assert out["global"] is None and out["communities"] == [] and out["paths"] == [] and out["structured"] is None
    assert out["trace"] == {"route": "search", "explain": []}
    assert "context" not in out and answer.to_dict(context=True)["context"] == "CONTEXT"


def test_graph_coverage_counts_the_terms_the_seed_lacks_rare_ones_more():
    from graphrag_cypher.retrieval.graph import coverage, term_weights, words

    seed = words("Signmark is a rapper from Finland.")
    markka = words("The Finnish markka was the currency of Finland until 2002.")
    other = words("Currency boards were common in the colonies.")
    pool = [seed, markka, other, words("A currency is money."), words("Currency and money.")]
    weights = term_weights(["Signmark", "currency", "replaced", "markka"], pool)
    assert weights["markka"] > weights["currency"]  # one candidate holds it, four hold "currency"
    # the seed has Signmark; of currency/replaced/markka the markka passage holds two, the other one
    assert coverage(weights, seed, markka) > coverage(weights, seed, other) > 0
    assert coverage(weights, markka | seed, other) == 0.0  # only "replaced" is missing, and it lacks it too
    assert coverage({"Signmark": 1.0}, seed, markka) == 0.0  # nothing missing: no coverage
    assert words("Ünïcode CAFÉ") == {"unicode", "cafe"}
