"""Time expressions in a question: the date range one means (``parse_time_range``) and the
question without it (``strip_time_expression``). Pure Python; the rules themselves are in
`date_rules.py`.

Time expressions (``parse_time_range``)
======================================

Matching is case-insensitive and may happen anywhere in the question. When a question
holds several expressions, the leftmost one wins (the longest where two start at the
same place), so "from 2024-01-01 to 2024-02-15" is one range, not the first date.
All ranges are inclusive; ``None`` as a bound means open-ended. Weeks start on Monday.
"today" is the date passed in; nothing is clipped to it unless said below.

English
-------
=========================================  ==============================================
expression                                 range
=========================================  ==============================================
today / yesterday                          that day
this week (current week)                   Monday of this week .. today
last week (previous week)                  previous Monday .. previous Sunday
this month (current month)                 1st of this month .. today
last month (previous month)                the whole previous calendar month
this quarter / last quarter                quarter start .. today / whole previous quarter
this year (current year)                   1 January .. today
last year (previous year)                  the whole previous calendar year
past|last|previous N days|weeks|months|    today minus N units .. today; N is a number
  quarters|years|decades|hours               or a word one..twelve; month arithmetic
                                             clamps to the month end (past 1 month from
                                             2024-03-31 starts 2024-02-29); hours round up
                                             to whole days
in|over|within|during|for the past/last N  same (the lead-in is part of the expression)
past week|month|quarter|year|decade        = past 1 week|month|quarter|year|decade
                                             (rolling, unlike "last week"); "last decade"
                                             is the past 10 years too
recent, recently, most recent, lately      past 30 days (today minus 30 days .. today)
last September / last Sept                 the most recent September strictly before the
                                             current month (today in Nov 2026 -> Sept 2026,
                                             today in Sept 2026 -> Sept 2025)
this September                             September of the current year
in|during September (no year)              the most recent September not after the
                                             current month (today in Sept 2026 -> Sept 2026)
March 2024 / in March 2024 / March of 2024 the whole month
March 5, 2024 / 5 March 2024 / 2024-03-05  that day (also 2024/03/05)
Q4 2023 / 2023 Q4 / Q4 of 2023 / the       1 October 2023 .. 31 December 2023
  fourth quarter of 2023 / 4th quarter
H1 2024 / first half of 2024               1 January .. 30 June (H2: July .. December)
the 1990s / 1990s                          1990-01-01 .. 1999-12-31
in|during|of|from|throughout 2023,         the whole year; a bare 4-digit number without
  in the year 2023                           such a lead-in is not a time ("How many were
                                             2023 people" is None); years 1000..2100
since P                                    start of P .. today
before P / prior to P                      open .. the day before P starts
after P                                    the day after P ends .. open
between P and Q                            start of P .. end of Q
from P to|until|till|through Q             start of P .. end of Q ("to now/today/present"
                                             ends today)
=========================================  ==============================================

P and Q are any absolute point above: a date, a month with its year, a quarter, a half,
a decade or a year (a bare year is fine after since/before/after/between/from).

Month names count only with a year or with a last/this/in/during lead-in, so "What did
March do?" is None. The word "may" is a month only when written "May" (or followed by
a year): "May I ask ..." and "this may be ..." are None. Because "of 2023" counts as a
time, so does the "of 1812" in "the War of 1812" (the whole year 1812).

Chinese (Traditional and Simplified; numbers as digits or 一..十二, 兩/两 = 2)
---------------------------------------------------------------------------
今天/今日, 昨天/昨日, 前天 (today - 2) -- that day;
本週/本周/這週/这周/本星期/這個星期 -- as "this week"; 上週/上周/上星期 -- "last week";
本月/這個月/这个月 -- "this month"; 上個月/上个月/上月 -- "last month";
今年 -- "this year"; 去年 -- last calendar year; 前年 -- the year before last;
去年九月 / 今年3月 / 前年九月 -- that month of that year;
九月 / 9月 alone -- the most recent September not after the current month (as English
"in September");
2023年 -- the year; 2023年3月 -- the month; 2023年3月5日 -- the day;
2023年第四季度 / 2023年Q4 -- the quarter;
最近/過去/过去/近 N 天|日|週|周|星期|個月|个月|月|年 -- past N units
  (最近三個月, 最近3个月, 過去三個月, 最近 7 天 ...);
最近/近期/近來/近来 alone -- past 30 days;
2020年以來/以来/至今 -- since; 2020年以前/之前 -- before; 2020年以後/以后/之後/之后 -- after.

Not supported (left as None): "N days ago", "next ...", weekends, "few/couple of",
seasons, weekday names, fiscal years, relative Chinese expressions like 三天前.
"""

from __future__ import annotations

import datetime
import re
from dataclasses import dataclass

from .date_rules import RULES, Date
from .language import _HAN

__all__ = ["DateRange", "parse_time_range", "strip_time_expression"]


@dataclass(frozen=True)
class DateRange:
    start: datetime.date | None  # inclusive
    end: datetime.date | None  # inclusive
    expression: str  # the matched text, e.g. "past 3 months"

    def to_dict(self) -> dict:
        return {
            "from": self.start.isoformat() if self.start else None,
            "to": self.end.isoformat() if self.end else None,
            "expression": self.expression,
        }


# --------------------------------------------------------------------------- public: time


def _find_time(question: str, today: Date) -> tuple[int, int, DateRange] | None:
    best: tuple[int, int, DateRange] | None = None
    for regex, handler in RULES:
        pos = 0
        while True:
            m = regex.search(question, pos)
            if m is None:
                break
            start, end = m.span()
            if best is not None and start > best[0]:
                break  # cannot beat a match further left
            try:
                result = handler(m, today)
            except (ValueError, OverflowError):  # e.g. "past 999 decades" before year 1
                result = None
            if result is not None and end > start:
                candidate = (start, end, DateRange(result[0], result[1], m.group(0).strip()))
                if best is None or start < best[0] or (start == best[0] and end > best[1]):
                    best = candidate
                break
            pos = start + 1
    return best


def parse_time_range(question: str, today: datetime.date) -> DateRange | None:
    """The question's time expression as an inclusive date range against `today`, or None.

    See the module docstring for what is recognised and what each expression means.
    """
    if not question:
        return None
    found = _find_time(question, today)
    return found[2] if found else None


_PUNCT_END = "?!.？！。"
_PUNCT_MID = ",;:，；：、"


def strip_time_expression(question: str, rng: DateRange | None) -> str:
    """The question without its time expression (so it does not pollute search).

    Returns the question unchanged when `rng` is None or its expression is not in it, and
    also when nothing but punctuation would be left (searching "" helps no one).
    """
    if rng is None or not rng.expression:
        return question
    index = question.find(rng.expression)
    if index < 0:
        index = question.lower().find(rng.expression.lower())
    if index < 0:
        return question
    before = question[:index].rstrip()
    after = question[index + len(rng.expression) :].lstrip()
    # a comma or similar that introduced or closed the expression goes with it
    if not before:
        after = after.lstrip(_PUNCT_MID + " ")
    elif not after or after[0] in _PUNCT_END:
        before = before.rstrip(_PUNCT_MID + " ")
    elif after[0] in _PUNCT_MID and before[-1] in _PUNCT_MID:
        after = after[1:].lstrip()
    if before and after and after[0] not in _PUNCT_END + _PUNCT_MID and not (_is_cjk(before[-1]) or _is_cjk(after[0])):
        text = before + " " + after
    else:
        text = before + after
    text = re.sub(r"[ \t]{2,}", " ", text).strip()
    if not re.search(r"\w", text):
        return question
    if index == 0 and question[:1].isupper() and text[:1].islower():
        text = text[0].upper() + text[1:]
    return text


def _is_cjk(char: str) -> bool:
    return bool(_HAN.match(char))
