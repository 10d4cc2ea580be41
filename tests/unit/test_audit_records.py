"""The audit's record keeping without a database: counts merge, ids are capped, an audit opened
inside another adds to it, and `--since` reads spans and ISO times (anything else: one line)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from graphrag_cypher.audit import MAX_IDS, Audit, audited, since_time, stamp
from graphrag_cypher.errors import GraphragError


def test_counts_merge_and_ids_are_capped():
    entry = Audit("forget")
    entry.add({"documents": {"deleted": 1}, "model": "a"})
    entry.add({"documents": {"deleted": 2, "created": 0}, "model": "b", "ok": True})
    assert entry.changed == {"documents": {"deleted": 3, "created": 0}, "model": "b", "ok": True}
    entry.ids("forgotten", (f"doc:{i}" for i in range(MAX_IDS + 5)))
    assert len(entry.changed["forgotten"]) == MAX_IDS and entry.changed["forgotten_more"] == 5


def test_an_audit_inside_another_adds_to_it_and_errors_are_one_line():
    with audited(None, "crawl", None) as outer:
        with audited(None, "learn", "delta") as inner:
            inner.add({"documents": {"created": 2}})
            inner.only_if(False)
        with audited(None, "learn", "delta") as again:
            again.only_if(True)
    assert inner is outer and again is outer
    assert (outer.operation, outer.corpora, outer.changed, outer.wrote) == (
        "crawl",
        {"delta"},
        {"documents": {"created": 2}},
        True,
    )
    with pytest.raises(ValueError), audited(None, "load") as failed:
        raise ValueError("first line\nsecond line")
    assert failed.error == "first line"


def test_since_reads_spans_and_iso_times():
    now = datetime(2026, 3, 10, 12, 0, tzinfo=UTC)
    assert since_time("1d", now) == "2026-03-09T12:00:00+00:00"
    assert since_time("30m", now) == "2026-03-10T11:30:00+00:00"
    assert since_time("2w", now) == "2026-02-24T12:00:00+00:00"
    assert since_time("2026-01-31") == "2026-01-31T00:00:00+00:00"
    assert since_time("2026-01-31T08:00:00Z") == "2026-01-31T08:00:00+00:00"
    assert since_time(None) is None and since_time(" ") is None
    with pytest.raises(GraphragError, match="--since 'yesterday': give a span"):
        since_time("yesterday")


def test_a_stored_time_is_written_at_fixed_width_so_its_text_sorts_as_the_times_do():
    from datetime import UTC, datetime, timedelta, timezone

    from neo4j.time import DateTime

    times = [
        DateTime(2026, 12, 5, 12, 24, 15, 400_000_000, tzinfo=UTC),
        DateTime(2026, 12, 5, 12, 24, 15, 482_000_000, tzinfo=UTC),
    ]
    assert [stamp(t) for t in times] == ["2026-12-05T12:24:15.400Z", "2026-12-05T12:24:15.482Z"]
    assert sorted(stamp(t) for t in reversed(times)) == [stamp(t) for t in times]
    assert stamp(DateTime(2026, 12, 5, 12, 0, 0, tzinfo=UTC)) == "2026-12-05T12:00:00.000Z"
    east = datetime(2026, 12, 5, 13, 0, 0, tzinfo=timezone(timedelta(hours=1)))
    assert stamp(east) == "2026-12-05T12:00:00.000Z", "in UTC whatever the zone it was stored in"
