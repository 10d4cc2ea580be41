"""The relevance judge's reply parsing: what it cannot read keeps the evidence."""

from graphrag_cypher.retrieval.gate import _parse_verdicts


def test_verdicts_are_read_by_passage_id_and_bad_rows_are_ignored():
    reply = (
        '```json\n{"verdicts": [{"id": "P1", "relevant": true, "reason": "names the smith"}, '
        '{"id": "[P2]", "relevant": false, "reason": "tides"}, {"id": "P9", "relevant": false}, '
        '{"id": "P3", "relevant": "no"}, "junk"]}\n```'
    )
    assert _parse_verdicts(reply, 3) == {"P1": (True, "names the smith"), "P2": (False, "tides")}


def test_an_unreadable_reply_gives_no_verdict():
    assert _parse_verdicts("I think they are all fine.", 2) == {}
    assert _parse_verdicts('{"verdicts": "yes"}', 2) == {}
