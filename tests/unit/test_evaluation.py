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


def test_several_cutoffs_at_once_and_the_summary_reports_recall_at_2_and_5():
    from graphrag_cypher.evaluation import cutoffs, summarise

    q = Question("1", "?", None, [], {"a", "b"}, set())
    ranked = [{"document_id": d, "title": None} for d in ["x", "a", "y", "z", "b"]]
    both = score(q, ranked, cutoffs(5))
    assert both == {"recall": {2: 0.5, 5: 1.0}, "hit": {2: 0.0, 5: 1.0}, "rr": 0.5}
    assert cutoffs(10) == [2, 5, 10]
    summary = summarise([both, score(q, ranked[:1], cutoffs(5))], [10.0, 20.0], 5)
    assert summary["recall@2"] == 25.0 and summary["recall@5"] == 50.0
    assert summary["hit@2"] == 0.0 and summary["hit@5"] == 50.0
    assert list(summary)[:4] == ["recall@2", "recall@5", "hit@2", "hit@5"]


def test_the_report_marks_the_default_mode(tmp_path):
    from graphrag_cypher.evaluation import write_report

    metrics = {"recall@2": 50.0, "recall@5": 70.0, "hit@2": 20.0, "hit@5": 40.0, "mrr": 0.5}
    result = {
        "dataset": "musique (q.json)",
        "questions": 3,
        "k": 5,
        "default_mode": "graph",
        "modes": {
            "vector": {**metrics, "latency_ms": {"p50": 5.0, "p95": 9.0}},
            "graph": {**metrics, "recall@5": 80.0, "latency_ms": {"p50": 9.0, "p95": 12.0}},
        },
        "peers": {"neo4j-graphrag HybridRetriever": {**metrics, "latency_ms": {"p50": 7.0, "p95": 8.0}}},
    }
    markdown, chart = write_report(result, tmp_path)
    text = markdown.read_text()
    assert "| graph (default) | 50.00 | 80.00 | 20.00 | 40.00 |" in text
    assert "| vector | 50.00 | 70.00 |" in text and "vector (default)" not in text
    assert "Default mode: `graph`" in text
    assert chart.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_passage_files_expand_folders_and_keep_one_corpus_key(tmp_path):
    import json

    from graphrag_cypher.evaluation import corpus_key, passage_files
    from graphrag_cypher.loaders.qa_corpus import parse_qa_corpora

    a, folder = tmp_path / "a.json", tmp_path / "more"
    folder.mkdir()
    a.write_text(json.dumps([{"title": "Mill", "text": "A mill."}, {"title": "Weir", "text": "A weir."}]))
    (folder / "c.json").write_text(
        json.dumps([{"title": "Mill", "text": "A mill."}, {"title": "Ford", "text": "A ford."}])
    )
    (folder / "b.json").write_text(json.dumps({"Bridge": ["A bridge."]}))
    (folder / "notes.txt").write_text("not a corpus")
    files = passage_files([a, folder])
    assert [f.name for f in files] == ["a.json", "b.json", "c.json"]
    assert passage_files([a, a]) == (a.resolve(),)
    titles = [d.title for d in parse_qa_corpora(files, corpus="eval")]
    assert titles == ["Mill", "Weir", "Bridge", "Ford"], "the passage in two files comes once, from the first"
    # one file keeps the key it had (instances made before are reused); a union has its own
    assert corpus_key(a, "m") == corpus_key([a], "m") != corpus_key([a, folder], "m")
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(GraphragError, match="holds no .json passage files"):
        passage_files([empty])
