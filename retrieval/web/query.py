"""What the web is asked for a question: its standalone text and the dates it means."""

from __future__ import annotations

from datetime import date

from .search import Dates


def web_question(analysis, today: date) -> tuple[str, Dates | None]:
    """(text, dates): what the web is asked for a question — the standalone question with a
    relative time expression ("上個月", "last month") taken out and stated as the dates it
    means against `today`, since a search engine cannot resolve it. The graph's date filter
    (the question's own range, or --from/--to) is stated too. An absolute expression the graph
    did not filter by ("born in 1990" in an undated corpus) stays in the text as written: an
    engine reads it there."""
    from ..question.dates import parse_time_range, strip_time_expression

    filters = analysis.filters
    stated = (filters.date_from, filters.date_to)
    if filters.time_expression:
        return analysis.search_text, stated
    question = analysis.question
    dates = stated if any(stated) else None
    found = parse_time_range(question, today)
    if found is not None and _relative(question, found, today):
        question = strip_time_expression(question, found)
        dates = dates or (
            found.start.isoformat() if found.start else None,
            found.end.isoformat() if found.end else None,
        )
    return question, dates


def _relative(question: str, found, today: date) -> bool:
    """Whether the expression's dates depend on today (the same question asked 400 days later
    means other dates)."""
    from datetime import timedelta

    from ..question.dates import parse_time_range

    later = parse_time_range(question, today + timedelta(days=400))
    return later is None or (later.start, later.end) != (found.start, found.end)
