from pathlib import Path

import pytest

from graphrag_cypher.errors import GraphragError
from graphrag_cypher.evaluation import Question, detect_format, exact_match, f1, normalize_answer, read_questions, score

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "eval"


def test_formats_are_detected_and_gold_passages_read():
    fmt, questions = read_questions(FIXTURES / "musique_questions.json")
    assert fmt == "musique" and len(questions) == 3
    assert len(questions[0].gold_ids) == 2 and all(g.startswith("passage:") for g in questions[0].gold_ids)
    fmt, questions = read_questions(FIXTURES / "2wiki_questions.json")
    assert fmt == "2wiki" and questions[0].gold_titles == {"Carrow", "Brannock"}
    with pytest.raises(GraphragError, match="unknown question format"):
        detect_format([{"question": "?"}])


def test_recall_hit_and_reciprocal_rank():
    q = Question("1", "?", None, [], {"a", "b"}, set())
    ranked = [{"document_id": d, "title": None} for d in ["x", "a", "a", "y", "z", "b"]]
    # duplicates of a document count once: top 5 documents are x, a, y, z, b
    assert score(q, ranked, 5) == {"recall": 1.0, "hit": 1.0, "rr": 0.5}
    assert score(q, ranked, 2) == {"recall": 0.5, "hit": 0.0, "rr": 0.5}
    by_title = Question("2", "?", None, [], set(), {"Carrow"})
    assert score(by_title, [{"document_id": "p1", "title": "Carrow"}], 5)["recall"] == 1.0


def test_squad_normalisation_em_and_f1():
    assert normalize_answer("The  River, Wend!") == "river wend"
    assert exact_match("the Wend", ["Wend"]) == 1.0
    assert f1("Brannock the giant", ["Brannock"]) == pytest.approx(2 * (1 / 2) * 1 / (1 / 2 + 1))
    assert f1("nothing", ["Brannock"]) == 0.0
