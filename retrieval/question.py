"""Question analysis: time ranges, relation routing, search keywords and language.

Pure Python, no database (the language is told by lingua-language-detector where it is
installed). Everything here is heuristic and deliberately conservative: when in doubt a
question is left alone.

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

Routing (``route``)
===================
"relation" for "how are A and B related|connected|linked", "how is A related to B",
"how do A and B relate", "what connects|links A and|to|with B", "(the) relationship|
relation|link|connection between A and B" (anywhere), "what do A and B have in common",
and Chinese "A和B(之間)有什麼關係 / A与B的关系". Questions about what two did to each other
take it too: "what did A and B do to each other", "what happened between A and B", "how did
A treat B", "what did A do to B", "how did A and B get along", "were A and B friends", "what
is A's relationship to B", Chinese "A和B之間發生了什麼 / A對B做了什麼 / A和B互相…", Japanese
"AとBはお互いに…". In any language, "A <and> B" (and, és, und, et, y, e, i, a, en, och, …)
with a word for "each other" (egymás…, einander, l'un l'autre, el uno al otro, nawzajem,
navzájem, друг друга, …), for a relationship (viszony, kapcsolat, Beziehung, relación,
relação, związek, vztah, отношения, …) or "happened between" (mi történt … között, was
geschah zwischen, …) does, where A and B are written as names (capitalised, next to the
conjunction): "Reynold és Brannock milyen viszonyban vannak, mit csináltak egymással?".
Everything else is "search". The retrieval takes the route only when both names are known
entities (`relation.relation`); otherwise the question is searched. Entities are returned
as written, without surrounding quotes, leading articles (the/a/an), trailing punctuation
or a trailing time expression ("... in 2023").
"""

from __future__ import annotations

import calendar
import datetime
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass

__all__ = [
    "DateRange",
    "Route",
    "LANGUAGE_NAMES",
    "detect_language",
    "keywords",
    "parse_time_range",
    "route",
    "strip_time_expression",
]

Date = datetime.date


# --------------------------------------------------------------------------- results


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


@dataclass(frozen=True)
class Route:
    kind: str  # "relation" or "search"
    a: str | None = None
    b: str | None = None


# --------------------------------------------------------------------------- date helpers


def _month_end(year: int, month: int) -> Date:
    return Date(year, month, calendar.monthrange(year, month)[1])


def _add_months(day: Date, months: int) -> Date:
    """Calendar month arithmetic, clamping to the month end (like dateutil's relativedelta)."""
    index = day.year * 12 + (day.month - 1) + months
    year, month = divmod(index, 12)
    month += 1
    return Date(year, month, min(day.day, calendar.monthrange(year, month)[1]))


def _month_range(year: int, month: int) -> tuple[Date, Date]:
    return Date(year, month, 1), _month_end(year, month)


def _quarter_range(year: int, quarter: int) -> tuple[Date, Date]:
    first = 3 * (quarter - 1) + 1
    return Date(year, first, 1), _month_end(year, first + 2)


def _year_range(year: int) -> tuple[Date, Date]:
    return Date(year, 1, 1), Date(year, 12, 31)


def _minus(today: Date, n: int, unit: str) -> Date:
    if unit == "hour":
        return today - datetime.timedelta(days=-(-n // 24))
    if unit == "day":
        return today - datetime.timedelta(days=n)
    if unit == "week":
        return today - datetime.timedelta(weeks=n)
    if unit == "month":
        return _add_months(today, -n)
    if unit == "quarter":
        return _add_months(today, -3 * n)
    if unit == "decade":
        return _add_months(today, -120 * n)
    return _add_months(today, -12 * n)  # year


def _past(today: Date, n: int, unit: str) -> tuple[Date, Date]:
    return _minus(today, n, unit), today


def _last_month_named(today: Date, month: int) -> tuple[Date, Date]:
    """The most recent `month` strictly before the current month."""
    year = today.year if month < today.month else today.year - 1
    return _month_range(year, month)


def _recent_month_named(today: Date, month: int) -> tuple[Date, Date]:
    """The most recent `month` not after the current month."""
    year = today.year if month <= today.month else today.year - 1
    return _month_range(year, month)


# --------------------------------------------------------------------------- vocabulary

_MONTHS = {
    "january": 1,
    "jan": 1,
    "february": 2,
    "feb": 2,
    "march": 3,
    "mar": 3,
    "april": 4,
    "apr": 4,
    "may": 5,
    "june": 6,
    "jun": 6,
    "july": 7,
    "jul": 7,
    "august": 8,
    "aug": 8,
    "september": 9,
    "sept": 9,
    "sep": 9,
    "october": 10,
    "oct": 10,
    "november": 11,
    "nov": 11,
    "december": 12,
    "dec": 12,
}
_MONTH = r"(?:" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\b\.?"

_NUMBER_WORDS = {
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "a": 1,
    "an": 1,
}
_N = r"(?:\d{1,3}|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)"
_UNIT = r"(?:hours?|days?|weeks?|months?|quarters?|years?|yrs?|decades?)"
_ORDINALS = {"first": 1, "1st": 1, "second": 2, "2nd": 2, "third": 3, "3rd": 3, "fourth": 4, "4th": 4}

_YEAR = r"(?<!\d)(?:1\d{3}|20\d{2}|2100)(?!\d)"
_DAY = r"(?:3[01]|[12]\d|0?[1-9])(?:st|nd|rd|th)?"
_LEAD = r"(?:(?:in|during|over|within|for|from|throughout)\s+)?(?:the\s+)?"

# CJK numbers 一..十二 (and more), 兩/两 = 2
_CN_DIGITS = {
    "零": 0,
    "〇": 0,
    "一": 1,
    "二": 2,
    "兩": 2,
    "两": 2,
    "三": 3,
    "四": 4,
    "五": 5,
    "六": 6,
    "七": 7,
    "八": 8,
    "九": 9,
}
_CN_N = r"(?:\d{1,3}|[一二兩两三四五六七八九]?十[一二三四五六七八九]?|[一二兩两三四五六七八九])"
_CN_MONTH = r"(?:1[0-2]|0?[1-9]|十[一二]?|[一二三四五六七八九])"


def _number(text: str) -> int:
    text = text.strip().lower()
    if text.isdigit():
        return int(text)
    if text in _NUMBER_WORDS:
        return _NUMBER_WORDS[text]
    if "十" in text:
        tens, _, ones = text.partition("十")
        return (_CN_DIGITS.get(tens, 1) if tens else 1) * 10 + (_CN_DIGITS.get(ones, 0) if ones else 0)
    return _CN_DIGITS[text]


def _unit(text: str) -> str:
    text = text.lower().rstrip("s")
    if text in {"yr", "year"}:
        return "year"
    return text


def _cn_unit(text: str) -> str:
    if text in {"天", "日"}:
        return "day"
    if text.endswith("年"):
        return "year"
    if text.endswith("月"):
        return "month"
    if text.endswith("季度") or text.endswith("季"):
        return "quarter"
    return "week"


# --------------------------------------------------------------------------- absolute points

# A "point" is an absolute period: a day, a month, a quarter, a half, a decade or a year.
_POINT_FORMS: list[tuple[str, str]] = [
    ("iso", rf"(?P<y>{_YEAR})(?P<sep>[-/])(?P<m>1[0-2]|0?[1-9])(?P=sep)(?P<d>3[01]|[12]\d|0?[1-9])(?![\d/-])"),
    ("mdy", rf"(?P<mon>{_MONTH})\s+(?P<d>{_DAY}),?\s+(?P<y>{_YEAR})"),
    ("dmy", rf"(?P<d>{_DAY})\s+(?:of\s+)?(?P<mon>{_MONTH}),?\s+(?P<y>{_YEAR})"),
    ("monthyear", rf"(?P<mon>{_MONTH})(?:\s+of|\s*,)?\s+(?P<y>{_YEAR})"),
    (
        "quarter",
        rf"(?:q(?P<q>[1-4])(?:\s+of|\s*,|\s*/)?\s*(?P<y>{_YEAR})"
        rf"|(?P<y2>{_YEAR})\s*[-/]?\s*q(?P<q2>[1-4])\b"
        rf"|(?:the\s+)?(?P<ord>first|second|third|fourth|1st|2nd|3rd|4th)\s+quarter\s+(?:of\s+|in\s+)?(?P<y3>{_YEAR}))",
    ),
    (
        "half",
        rf"(?:h(?P<h>[12])\s+(?P<y>{_YEAR})|(?P<y2>{_YEAR})\s+h(?P<h2>[12])\b"
        rf"|(?:the\s+)?(?P<ord>first|second|1st|2nd)\s+half\s+(?:of\s+|in\s+)?(?P<y3>{_YEAR}))",
    ),
    ("decade", r"(?:the\s+)?(?P<dec>1[1-9]\d0|20\d0)s\b(?!\s+of\b)"),
    ("year", rf"(?P<y>{_YEAR})"),
]
_POINT_RES = [(kind, re.compile(pattern, re.IGNORECASE)) for kind, pattern in _POINT_FORMS]


def _uncaptured(pattern: str) -> str:
    """A point form without its named groups, to embed several times in one pattern."""
    pattern = pattern.replace("(?P=sep)", "[-/]")
    return re.sub(r"\(\?P<\w+>", "(?:", pattern)


_POINT = "(?:" + "|".join(_uncaptured(p) for _, p in _POINT_FORMS) + ")"
_DATE_ONLY = "(?:" + "|".join(_uncaptured(p) for k, p in _POINT_FORMS if k in {"iso", "mdy", "dmy"}) + ")"


def _month_of(text: str) -> int:
    return _MONTHS[text.lower().rstrip(".")]


def _day_of(text: str) -> int:
    digits = re.match(r"\d+", text)
    if digits is None:
        raise ValueError(f"no day number in {text!r}")
    return int(digits.group(0))


def _safe_date(year: int, month: int, day: int) -> Date | None:
    try:
        return Date(year, month, day)
    except ValueError:
        return None


def _parse_point(text: str) -> tuple[Date, Date] | None:
    text = text.strip()
    for kind, regex in _POINT_RES:
        m = regex.fullmatch(text)
        if not m:
            continue
        g = m.groupdict()
        if kind == "iso":
            day = _safe_date(int(g["y"]), int(g["m"]), int(g["d"]))
            return (day, day) if day else None
        if kind in {"mdy", "dmy"}:
            day = _safe_date(int(g["y"]), _month_of(g["mon"]), _day_of(g["d"]))
            return (day, day) if day else None
        if kind == "monthyear":
            return _month_range(int(g["y"]), _month_of(g["mon"]))
        if kind == "quarter":
            if g["q"]:
                return _quarter_range(int(g["y"]), int(g["q"]))
            if g["q2"]:
                return _quarter_range(int(g["y2"]), int(g["q2"]))
            return _quarter_range(int(g["y3"]), _ORDINALS[g["ord"].lower()])
        if kind == "half":
            year = int(g["y"] or g["y2"] or g["y3"])
            half = int(g["h"] or g["h2"] or _ORDINALS[g["ord"].lower()])
            return (Date(year, 1, 1), Date(year, 6, 30)) if half == 1 else (Date(year, 7, 1), Date(year, 12, 31))
        if kind == "decade":
            first = int(g["dec"])
            return Date(first, 1, 1), Date(first + 9, 12, 31)
        return _year_range(int(g["y"]))
    return None


def _cn_point(m: re.Match) -> tuple[Date, Date] | None:
    year = int(m.group("y"))
    if not 1000 <= year <= 2100:
        return None
    if m.group("m"):
        month = _number(m.group("m"))
        if m.group("d"):
            day = _safe_date(year, month, _number(m.group("d")))
            return (day, day) if day else None
        return _month_range(year, month)
    return _year_range(year)


# --------------------------------------------------------------------------- rules

_Range = tuple[Date | None, Date | None]
_DAY1 = datetime.timedelta(days=1)


def _r_between(m: re.Match, today: Date) -> _Range | None:
    first = _parse_point(m.group("p1"))
    if first is None:
        return None
    tail = m.group("p2").lower()
    second: tuple[Date, Date] | None
    if re.fullmatch(r"(?:the\s+)?(?:now|today|present|date)", tail):
        second = (today, today)
    else:
        second = _parse_point(m.group("p2"))
    if second is None:
        return None
    if second[1] < first[0]:
        first, second = second, first
    return first[0], second[1]


def _r_since(m: re.Match, today: Date) -> _Range | None:
    point = _parse_point(m.group("p"))
    return (point[0], today) if point else None


def _r_before(m: re.Match, today: Date) -> _Range | None:
    point = _parse_point(m.group("p"))
    return (None, point[0] - _DAY1) if point else None


def _r_after(m: re.Match, today: Date) -> _Range | None:
    point = _parse_point(m.group("p"))
    return (point[1] + _DAY1, None) if point else None


def _r_point(m: re.Match, today: Date) -> _Range | None:
    return _parse_point(m.group("p"))


def _this(unit: str, today: Date) -> _Range:
    if unit == "week":
        return today - datetime.timedelta(days=today.weekday()), today
    if unit == "month":
        return today.replace(day=1), today
    if unit == "quarter":
        return _quarter_range(today.year, (today.month - 1) // 3 + 1)[0], today
    return Date(today.year, 1, 1), today


def _last(unit: str, today: Date) -> _Range:
    if unit == "week":
        monday = today - datetime.timedelta(days=today.weekday())
        return monday - datetime.timedelta(days=7), monday - _DAY1
    if unit == "month":
        prev = _add_months(today.replace(day=1), -1)
        return _month_range(prev.year, prev.month)
    if unit == "quarter":
        start = _add_months(_quarter_range(today.year, (today.month - 1) // 3 + 1)[0], -3)
        return _quarter_range(start.year, (start.month - 1) // 3 + 1)
    return _year_range(today.year - 1)


def _r_this(m: re.Match, today: Date) -> _Range:
    return _this(m.group("u").lower(), today)


def _r_last(m: re.Match, today: Date) -> _Range:
    return _last(m.group("u").lower(), today)


def _r_past_n(m: re.Match, today: Date) -> _Range | None:
    n = _number(m.group("n"))
    if n <= 0:
        return None
    return _past(today, n, _unit(m.group("u")))


def _r_past_one(m: re.Match, today: Date) -> _Range:
    return _past(today, 1, _unit(m.group("u")))


def _r_recent(m: re.Match, today: Date) -> _Range:
    return today - datetime.timedelta(days=30), today


def _may_ok(text: str) -> bool:
    """ "may" is a month only when capitalised as a name: "May", not "may"/"MAY"."""
    return text.rstrip(".").lower() != "may" or text.startswith("May")


def _r_named_month(m: re.Match, today: Date) -> _Range | None:
    name = m.group("mon")
    if not _may_ok(name):
        return None
    month = _month_of(name)
    lead = m.group("lead").lower()
    if lead in {"last", "previous"}:
        return _last_month_named(today, month)
    if lead == "this":
        return _month_range(today.year, month)
    return _recent_month_named(today, month)


def _r_today(m: re.Match, today: Date) -> _Range:
    return today, today


def _r_yesterday(m: re.Match, today: Date) -> _Range:
    day = today - _DAY1
    return day, day


# Chinese


def _r_cn_day(m: re.Match, today: Date) -> _Range:
    back = {"今天": 0, "今日": 0, "昨天": 1, "昨日": 1, "前天": 2}[m.group(0)]
    day = today - datetime.timedelta(days=back)
    return day, day


def _r_cn_rel(m: re.Match, today: Date) -> _Range:
    word = m.group(0)
    if word == "今年":
        return Date(today.year, 1, 1), today
    if word == "去年":
        return _year_range(today.year - 1)
    if word == "前年":
        return _year_range(today.year - 2)
    unit = "month" if "月" in word else "week"
    return _last(unit, today) if word.startswith("上") else _this(unit, today)


def _r_cn_year_month(m: re.Match, today: Date) -> _Range:
    year = today.year - {"今年": 0, "去年": 1, "前年": 2}[m.group("yw")]
    return _month_range(year, _number(m.group("m")))


def _r_cn_month(m: re.Match, today: Date) -> _Range | None:
    month = _number(m.group("m"))
    return _recent_month_named(today, month) if 1 <= month <= 12 else None


def _r_cn_point(m: re.Match, today: Date) -> _Range | None:
    return _cn_point(m)


def _r_cn_quarter(m: re.Match, today: Date) -> _Range | None:
    year = int(m.group("y"))
    quarter = _number(m.group("q") or m.group("q2"))
    return _quarter_range(year, quarter) if 1 <= quarter <= 4 else None


def _r_cn_past(m: re.Match, today: Date) -> _Range | None:
    n = _number(m.group("n"))
    return _past(today, n, _cn_unit(m.group("u"))) if n > 0 else None


def _r_cn_since(m: re.Match, today: Date) -> _Range | None:
    point = _cn_point(m)
    if point is None:
        return None
    word = m.group("w")
    if word in {"以來", "以来", "至今"}:
        return point[0], today
    if word in {"以前", "之前"}:
        return None, point[0] - _DAY1
    return point[1] + _DAY1, None


_CN_POINT = rf"(?<!\d)(?P<y>\d{{4}})\s*年(?:\s*(?P<m>{_CN_MONTH})\s*月(?:\s*(?P<d>3[01]|[12]\d|0?[1-9])\s*[日號号])?)?"
_CN_PAST_UNIT = r"(?:天|日|個星期|个星期|個禮拜|个礼拜|星期|禮拜|礼拜|週|周|個月|个月|月|個季度|个季度|季度|年)"

_I = re.IGNORECASE
_RULES: list[tuple[re.Pattern, Callable[[re.Match, Date], _Range | None]]] = [
    (re.compile(rf"\bbetween\s+(?P<p1>{_POINT})\s+and\s+(?P<p2>{_POINT})", _I), _r_between),
    (
        re.compile(
            rf"\bfrom\s+(?P<p1>{_POINT})\s*(?:to|until|till|through|thru|-|–)\s*"
            rf"(?P<p2>{_POINT}|(?:the\s+)?(?:now|today|present|date)\b)",
            _I,
        ),
        _r_between,
    ),
    (re.compile(rf"\b(?:ever\s+)?since\s+(?P<p>{_POINT})", _I), _r_since),
    (re.compile(rf"\b(?:before|prior\s+to|earlier\s+than)\s+(?P<p>{_POINT})", _I), _r_before),
    (re.compile(rf"\b(?:after|later\s+than)\s+(?P<p>{_POINT})", _I), _r_after),
    # absolute points that are unmistakably time: dates, months with a year, quarters, halves, decades
    (re.compile(rf"(?:\bon\s+)?(?P<p>{_DATE_ONLY})", _I), _r_point),
    (
        re.compile(rf"(?:\b(?:in|during|for|from|throughout|of)\s+)?(?P<p>{_uncaptured(_POINT_FORMS[3][1])})", _I),
        _r_point,
    ),
    (
        re.compile(rf"(?:\b(?:in|during|for|from|throughout|of)\s+)?(?P<p>{_uncaptured(_POINT_FORMS[4][1])})", _I),
        _r_point,
    ),
    (
        re.compile(rf"(?:\b(?:in|during|for|from|throughout|of)\s+)?(?P<p>{_uncaptured(_POINT_FORMS[5][1])})", _I),
        _r_point,
    ),
    (
        re.compile(rf"(?:\b(?:in|during|throughout|of|from)\s+)?\b(?P<p>{_uncaptured(_POINT_FORMS[6][1])})", _I),
        _r_point,
    ),
    # a bare year only with a lead-in that makes it a time
    (
        re.compile(rf"\b(?:in|during|of|from|throughout|in\s+the\s+year|in\s+year)\s+(?P<p>{_YEAR})(?![\w-])", _I),
        _r_point,
    ),
    # relative
    (re.compile(r"\btoday\b", _I), _r_today),
    (re.compile(r"\byesterday\b", _I), _r_yesterday),
    (re.compile(rf"\b{_LEAD}(?:this|current)\s+(?P<u>week|month|quarter|year)\b", _I), _r_this),
    (re.compile(rf"\b{_LEAD}(?:last|previous)\s+(?P<u>week|month|quarter|year)\b", _I), _r_last),
    (re.compile(rf"\b{_LEAD}(?:past|last|previous|preceding)\s+(?P<n>{_N})\s+(?P<u>{_UNIT})\b", _I), _r_past_n),
    (
        re.compile(rf"\b{_LEAD}(?:past\s+|(?:last|previous)\s+(?=decade))(?P<u>week|month|quarter|year|decade)\b", _I),
        _r_past_one,
    ),
    (re.compile(r"\b(?:(?:the\s+)?most\s+)?(?:recent(?:ly)?|lately)\b", _I), _r_recent),
    (re.compile(rf"\b(?P<lead>last|previous|this|in|during)\s+(?P<mon>{_MONTH})(?![\w'’])", _I), _r_named_month),
    # Chinese
    (re.compile(rf"{_CN_POINT}\s*(?P<w>以來|以来|至今|以前|之前|以後|以后|之後|之后)"), _r_cn_since),
    (re.compile(r"(?<!\d)(?P<y>\d{4})\s*年\s*(?:第\s*(?P<q>[1-4一二三四])\s*季度?|[Qq](?P<q2>[1-4]))"), _r_cn_quarter),
    (re.compile(_CN_POINT), _r_cn_point),
    (re.compile(rf"(?P<yw>今年|去年|前年)\s*(?P<m>{_CN_MONTH})\s*月份?"), _r_cn_year_month),
    (
        re.compile(
            rf"(?<![\d一二三四五六七八九十兩两個个年第上下本這这幾几每])(?P<m>{_CN_MONTH})\s*月份?(?![份底初中])"
        ),
        _r_cn_month,
    ),
    (re.compile(r"今天|今日|昨天|昨日|前天"), _r_cn_day),
    (
        re.compile(
            r"本週|本周|這週|这周|本星期|這星期|这星期|這個星期|这个星期|上週|上周|上星期|上個星期|上个星期"
            r"|本月|這個月|这个月|上個月|上个月|上月|今年|去年|前年"
        ),
        _r_cn_rel,
    ),
    (
        re.compile(
            rf"(?:最近|過去|过去|(?<![附接靠将將])近)\s*的?\s*(?P<n>{_CN_N})\s*(?P<u>{_CN_PAST_UNIT})(?:來|来|內|内|裡|里)?"
        ),
        _r_cn_past,
    ),
    (re.compile(r"最近|近期|近來|近来"), _r_recent),
]


# --------------------------------------------------------------------------- public: time


def _find_time(question: str, today: Date) -> tuple[int, int, DateRange] | None:
    best: tuple[int, int, DateRange] | None = None
    for regex, handler in _RULES:
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


# --------------------------------------------------------------------------- routing

_ENT = r"(?P<a>.+?)"
_ENT_B = r"(?P<b>.+?)"
_EACH_OTHER = r"(?:each\s+other|one\s+another)\b"
_TREAT = (
    r"treat|treated|deal\s+with|dealt\s+with|behave\s+(?:to|towards?)|behaved\s+(?:to|towards?)|"
    r"get\s+(?:along|on)\s+with|got\s+(?:along|on)\s+with|feel\s+about|felt\s+about|think\s+of|thought\s+of|"
    r"regard|regarded|view|viewed|wrong|wronged|betray|betrayed|trick|tricked|help|helped"
)
_ROUTES = [
    re.compile(
        rf"^\s*how\s+(?:are|were|is|was)\s+{_ENT}\s+and\s+{_ENT_B}\s+"
        r"(?:related|connected|linked|associated|interrelated)\b",
        _I,
    ),
    re.compile(
        rf"^\s*how\s+(?:are|were|is|was)\s+{_ENT}\s+(?:related|connected|linked|associated)\s+"
        rf"(?:to|with)\s+{_ENT_B}\s*[?.!]*\s*$",
        _I,
    ),
    re.compile(rf"^\s*how\s+(?:do|does|did)\s+{_ENT}\s+and\s+{_ENT_B}\s+(?:relate|connect)\b", _I),
    re.compile(rf"^\s*how\s+(?:do|does|did)\s+{_ENT}\s+(?:relate|connect)\s+(?:to|with)\s+{_ENT_B}\s*[?.!]*\s*$", _I),
    re.compile(
        rf"^\s*what\s+(?:connects|connected|links|linked|relates|related|ties|tied)\s+{_ENT}\s+"
        rf"(?:and|to|with)\s+{_ENT_B}\s*[?.!]*\s*$",
        _I,
    ),
    re.compile(
        rf"\b(?:relationships?|relations?|links?|connections?|associations?|ties)\s+between\s+"
        rf"{_ENT}\s+and\s+{_ENT_B}\s*[?.!]*\s*$",
        _I,
    ),
    re.compile(rf"^\s*what\s+(?:do|did|does)\s+{_ENT}\s+and\s+{_ENT_B}\s+have\s+in\s+common\b", _I),
    re.compile(
        rf"^\s*{_ENT}\s*(?:和|與|与|跟|同)\s*{_ENT_B}\s*(?:之間|之间)?\s*(?:有|存在)?\s*"
        r"(?:什麼|什么|何|怎樣的|怎样的|哪些|甚麼)?\s*(?:樣的|样的)?\s*的?\s*"
        r"(?:關係|关系|關聯|关联|聯繫|联系)"
    ),
    # what two did to each other
    re.compile(
        rf"^\s*what\s+(?:did|do|does|have|had|has)\s+{_ENT}\s+and\s+{_ENT_B}\s+"
        rf"(?:do|done|did|say|said|give|given|owe|owed|mean|meant|promise|promised)\s+"
        rf"(?:to|for|with|about|against)?\s*{_EACH_OTHER}",
        _I,
    ),
    re.compile(
        rf"^\s*what\s+(?:(?:has|had)\s+)?(?:(?:is|was)\s+going\s+on|happened|happens|happen|went\s+on|goes\s+on|"
        rf"passed|occurred|took\s+place|came\s+to\s+pass)\s+between\s+{_ENT}\s+and\s+{_ENT_B}\s*[?.!]*\s*$",
        _I,
    ),
    re.compile(
        rf"^\s*what\s+(?:did|does|do|has|had|have)\s+{_ENT}\s+(?:do|done)\s+(?:to|for|against|with)\s+{_ENT_B}"
        r"\s*[?.!]*\s*$",
        _I,
    ),
    re.compile(
        rf"^\s*how\s+(?:did|does|do|has|had|have|was|is|were)\s+{_ENT}\s+(?:{_TREAT})\s+{_ENT_B}\s*[?.!]*\s*$",
        _I,
    ),
    re.compile(
        rf"^\s*how\s+(?:did|does|do|have|had|were|are)\s+{_ENT}\s+and\s+{_ENT_B}\s+"
        rf"(?:{_TREAT}|get\s+(?:along|on)|got\s+(?:along|on)|interact(?:ed)?|meet|met|know|knew|"
        rf"come\s+to\s+know|become\s+(?:friends|enemies))\b",
        _I,
    ),
    re.compile(
        rf"^\s*(?:were|are|was|is|did|do|have|had)\s+{_ENT}\s+and\s+{_ENT_B}\s+(?:ever\s+)?"
        r"(?:friends|enemies|allies|rivals|foes|kin|relatives|married|lovers|partners|"
        r"(?:fight|fought|quarrel|quarrell?ed|meet|met|know|known|help|helped|betray|betrayed)\s+"
        rf"(?:{_EACH_OTHER}))\b",
        _I,
    ),
    re.compile(
        rf"^\s*what\s+(?:is|was|are|were)\s+{_ENT}(?:'s|’s|s'|s’)\s+(?:relationship|relation|connection|tie|"
        rf"link|bond)\s+(?:to|with)\s+{_ENT_B}\s*[?.!]*\s*$",
        _I,
    ),
    re.compile(
        rf"\b(?:relationship|relation|connection|bond)\s+of\s+{_ENT}\s+(?:to|with|and)\s+{_ENT_B}\s*[?.!]*\s*$", _I
    ),
    re.compile(
        rf"^\s*{_ENT}\s*(?:和|與|与|跟|同)\s*{_ENT_B}\s*(?:之間|之间)\s*(?:發生|发生|有過|有过)了?\s*"
        r"(?:什麼|什么|甚麼|哪些|何)"
    ),
    re.compile(rf"^\s*{_ENT}\s*(?:和|與|与|跟|同)\s*{_ENT_B}\s*(?:之間|之间)?\s*.{{0,8}}(?:互相|彼此|相互)"),
    re.compile(rf"^\s*{_ENT}\s*(?:對|对)\s*{_ENT_B}\s*(?:做|幹|干)了\s*(?:什麼|什么|甚麼|哪些)"),
    re.compile(rf"^\s*{_ENT}\s*(?:怎麼|怎么|如何|怎樣|怎样)\s*(?:對待|对待|對|对)\s*{_ENT_B}\s*[？?。]*\s*$"),
    re.compile(rf"^\s*{_ENT}\s*と\s*{_ENT_B}\s*(?:は|の|との|が)\s*.{{0,12}}?(?:お互い|互い|関係|間に何|あいだに何)"),
]

# The cross-language rule: "A <and> B" (A and B written as names) with a word of the family.
_AND_WORDS = frozenset("and & és meg und et y e i a oraz en och og ja și ve и та і".split())
_MUTUAL_WORDS = re.compile(
    r"(?:\beach\s+other\b|\bone\s+another\b|\begymás|\beinander\b|\bgegenseitig|\bl['’]une?\s+(?:à\s+|de\s+|avec\s+)?"
    r"l['’]autre\b|\bles\s+uns\s+(?:aux|les|des)\s+autres\b|\bmutuel|\bel\s+uno\s+(?:al|del|con\s+el|contra\s+el)\s+"
    r"otro\b|\bmutua|\bum\s+(?:ao|do|com\s+o)\s+outro\b|\buno\s+(?:all['’]|dell['’]|con\s+l['’])altro\b|\ba\s+vicenda\b|"
    r"\belkaar\b|\bvarandra\b|\bhverandre\b|\btoisiaan\b|\bnawzajem\b|\bwzajemn|\bnavzájem\b|\bvzájem|\bvzájom|"
    r"\bunul\s+(?:pe|cu|altuia)|\bbirbir|\bдруг\s+(?:друга|другу|другом|о\s+друге|с\s+другом)|\bвзаимн|"
    # words for a relationship
    r"\bviszony|\bkapcsolat|\bbeziehung|\bverhältnis|\brelations?\b|\brelationship|\brapports?\b|\brelaci[óo]n|"
    r"\brela[çc](?:[ãa]o|[õo]es)\b|\brelazion|\brapport[oi]\b|\brelatie\b|\bverhouding|\bförhållande|\brelacj|\bzwiąz|"
    r"\bstosun[ek]|\bvztah|\brelați|\brelati[ei]|\bilişki|\bilişk|\bотношени|\bстосунк|\bвідносин)",
    _I,
)
_BETWEEN = re.compile(
    r"\b(?:között|zwischen|entre|tra|fra|tussen|mellan|mellom|między|mezi|medzi|între|arasında|между|між)\b", _I
)
_HAPPENED = re.compile(
    r"\b(?:történt|zajlott|geschah|geschehen|passiert|vorgefallen|pass[ée]|passou|pasó|pasado|ocurri[óo]|sucedi[óo]|"
    r"aconteceu|acontecido|successo|accaduto|gebeurd|hände|hendte|stało|wydarzyło|stalo|odehrálo|stalo\s+se|"
    r"întâmplat|oldu|yaşandı|произошло|случилось|сталося|відбулося)",
    _I,
)
_NAME_CONNECTORS = frozenset("of the von van der den de du la le del della da di dos das al el".split())
_LEADING_ARTICLES = frozenset("the a an az der die das dem den des le la les l el los las o os as il lo gli".split())
_QUESTION_WORDS = frozenset(
    """mit mi mik ki kik milyen hogyan miért mikor hol co kto czy jak jaki jaka kdo jaký jaká proč kde que qué quem
    como cómo qual cuál cosa chi come wat wie hoe vad hur vem ce cine cum ne kim nasıl что кто как чем хто що""".split()
)
_WORD_AT = re.compile(r"[^\W\d_][\w'’.-]*|&")
_CLAUSE_END = re.compile(r"[,;:?!¿¡()\[\]\"“”«»]|[.](?=\s|$)")
_ARTICLE = re.compile(r"^(?:the|a|an)\s+", _I)
_QUOTES = "\"'“”‘’`«»「」『』"


def _clean_entity(text: str) -> str:
    text = text.strip().strip(_QUOTES + " ").rstrip("?!.,;:？！。，；：").strip().strip(_QUOTES + " ")
    # a trailing time expression is not part of the entity ("B in 2023")
    found = _find_time(text, Date(2000, 1, 1))
    if found is not None:
        start, end, rng = found
        if end == len(text) and start > 0 and not rng.expression.lower().startswith("of "):
            text = text[:start].rstrip(" ,")
    text = _ARTICLE.sub("", text, count=1)
    return text.strip().strip(_QUOTES + " ").rstrip("?!.,;:？！。，；：").strip()


def route(question: str) -> Route:
    """ "relation" with the two entity phrases for relation questions, else "search"."""
    for regex in _ROUTES:
        m = regex.search(question or "")
        if not m:
            continue
        a, b = _clean_entity(m.group("a")), _clean_entity(m.group("b"))
        if a and b and a.lower() != b.lower():
            return Route("relation", a, b)
    pair = _named_pair(question or "")
    if pair is not None:
        return Route("relation", *pair)
    return Route("search")


def _named_pair(question: str) -> tuple[str, str] | None:
    """The two names joined by "and" (in any of _AND_WORDS) in a question with a word for "each
    other", for a relationship, or "happened between": the cross-language relation rule. Each name is
    the capitalised run of words next to the conjunction (inner "of", "von", "de" … allowed), a
    question word or article at its edge left out; None unless both sides have one."""
    if not (_MUTUAL_WORDS.search(question) or (_BETWEEN.search(question) and _HAPPENED.search(question))):
        return None
    for clause in _CLAUSE_END.split(question):
        words = _WORD_AT.findall(clause)
        for i, word in enumerate(words):
            if word.lower() not in _AND_WORDS or i == 0 or i == len(words) - 1:
                continue
            a = _name_run(list(reversed(words[:i])), leftward=True)
            b = _name_run(words[i + 1 :], leftward=False)
            if a and b and a.lower() != b.lower():
                return a, b
    return None


def _name_run(words: list[str], leftward: bool) -> str:
    """The name that starts `words`, read outwards from the conjunction (leftward: the words before
    it, nearest first): capitalised words, a connector between two of them ("Mount of Greyhorn");
    after the conjunction an article or two first is skipped ("und der Riese"). A question word or
    function word at its outer edge is not part of it ("Did Reynold and …")."""
    i = 0
    if not leftward:
        while i < min(2, len(words)) and words[i].lower() in _LEADING_ARTICLES:
            i += 1
    run: list[str] = []
    while i < len(words):
        word = words[i].rstrip(".'’-")
        if word[:1].isupper():
            run.append(word)
        elif run and word.lower() in _NAME_CONNECTORS and i + 1 < len(words) and words[i + 1][:1].isupper():
            run.append(word)
        else:
            break
        i += 1
    if leftward:
        run.reverse()
    edge = 0 if leftward else -1
    while run and (run[edge].lower() in _QUESTION_WORDS or run[edge].lower() in _STOP):
        run.pop(edge)
    return " ".join(run)


# --------------------------------------------------------------------------- keywords

_EN_STOP = set(
    """
a about above after again against all almost also although am among an and any anyone anything are aren't
around as at be became because been before being below between both but by can cannot can't could couldn't
did didn't do does doesn't doing don't done down during each either else even ever every few for from
further get gets got had hadn't has hasn't have haven't having he her here hers herself him himself his how
however i if in into is isn't it it's its itself just least less let like many may me might more most much
must my myself no nor not now of off often on once one only onto or other others otherwise our ours
ourselves out over own per please rather really same shall she should shouldn't since so some someone
something such than that that's the their theirs them themselves then there there's these they this those
though through thus to too toward towards under until up upon us very via was wasn't we were weren't
whatever whether while will with within without won't would wouldn't yet you your yours yourself
yourselves
what what's which who who's whom whose when where where's why how's
tell explain describe summarize summarise give show list find know happen happened happens
""".split()
)
_DE_STOP = set(
    """
der die das den dem des ein eine einen einem einer eines und oder aber ist sind war waren wird wurde wurden
nicht kein keine mit von zu zum zur im ins auf für über unter bei nach aus auch sich es er sie wir ihr
ich du was wer wie wo wann warum wieso welche welcher welches gibt hat haben
""".split()
) - {"war"}
_FR_STOP = set(
    """
le la les un une des du de et ou est sont été était au aux en dans sur par pour avec sans ce cette ces
il elle ils elles nous vous je tu ne pas plus que qui quoi quel quelle quels quelles quand où pourquoi
comment combien qu'est-ce c'est l' d' qu'
""".split()
)
_ES_STOP = set(
    """
el la los las un una unos unas y o es son fue fueron está están del al de en por para con sin sobre
entre que qué quién quiénes cuál cuáles cuándo dónde cómo cuánto cuántos lo se su sus no más muy
""".split()
)
_STOP = _EN_STOP | _DE_STOP | _FR_STOP | _ES_STOP

_CJK = r"\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_CJK_RUN = re.compile(rf"[{_CJK}]+")
_CN_STOP = sorted(
    """
什麼 什么 甚麼 哪些 哪個 哪个 哪裡 哪里 為什麼 为什么 怎麼 怎么 怎樣 怎样 如何 多少 幾 几 誰 谁 嗎 吗 呢 吧 啊
的 了 是 在 和 與 与 及 跟 有 也 都 就 而 或 被 把 對 对 從 从 到 於 于 之 其 這 这 那 個 个 些 我 你 他 她 它
們 们 請 请 告訴 告诉 關於 关于 介紹 介绍 一下 一些 哪 麼 么
""".split(),
    key=len,
    reverse=True,
)
_CN_SPLIT = re.compile("|".join(map(re.escape, _CN_STOP)))
_TOKEN = re.compile(rf"(?P<cjk>[{_CJK}]+)|(?P<word>[^\W_](?:[\w'’.\-]*[^\W_])?)|(?P<end>[.!?](?=\s|$))")


def keywords(question: str, max_terms: int = 12) -> list[str]:
    """Content words for full-text search, in order, de-duplicated (case-insensitively).

    Stop words (English plus small German/French/Spanish lists) and question words are
    dropped, as are tokens shorter than 2 characters. Words that look like names keep
    their case (capitalised and not a sentence's first word, or with an inner capital
    such as "NASA"/"iPhone"); others are lowercased. A trailing possessive 's is dropped.
    Multiword names are not joined: "Ada Lovelace" gives "Ada", "Lovelace".
    Chinese runs are cut at common function words and kept when 2+ characters long.
    """
    if not question or max_terms <= 0:
        return []
    spaced = _CJK_RUN.sub(lambda m: f" {m.group(0)} ", question)
    out: list[str] = []
    seen: set[str] = set()
    sentence_start = True
    for m in _TOKEN.finditer(spaced):
        if m.group("end"):
            sentence_start = True
            continue
        is_first, sentence_start = sentence_start, False
        if m.group("cjk"):
            terms = [chunk for chunk in _CN_SPLIT.split(m.group("cjk")) if len(chunk) >= 2]
        else:
            token = re.sub(r"['’]s$", "", m.group("word")).strip(".-'’")
            lower = token.lower()
            if len(token) < 2 or lower in _STOP or lower.replace("’", "'") in _STOP:
                continue
            inner_cap = any(ch.isupper() for ch in token[1:])
            terms = [token if inner_cap or (token[:1].isupper() and not is_first) else lower]
        for term in terms:
            if term.lower() not in seen:
                seen.add(term.lower())
                out.append(term)
    return out[:max_terms]


# --------------------------------------------------------------------------- language

# The languages an answer can be asked for: code -> the name the answer instruction uses.
LANGUAGE_NAMES = {
    "en": "English",
    "de": "German",
    "fr": "French",
    "es": "Spanish",
    "pt": "Portuguese",
    "it": "Italian",
    "nl": "Dutch",
    "hu": "Hungarian",
    "pl": "Polish",
    "cs": "Czech",
    "sk": "Slovak",
    "ro": "Romanian",
    "sv": "Swedish",
    "tr": "Turkish",
    "ru": "Russian",
    "uk": "Ukrainian",
    "bg": "Bulgarian",
    "ar": "Arabic",
    "fa": "Persian",
    "hi": "Hindi",
    "el": "Greek",
    "he": "Hebrew",
    "th": "Thai",
    "zh": "Chinese",
    "ja": "Japanese",
    "ko": "Korean",
}
# The ones lingua-language-detector tells apart (its models ship in the wheel), by script: one
# detector per script, built with its models on the first question in that script. The others,
# and every language when lingua is absent or unsure, are told by their script.
_LINGUA_SCRIPTS = {
    "latin": ("en", "de", "fr", "es", "pt", "it", "nl", "hu", "pl", "cs", "sk", "ro", "sv", "tr"),
    "cyrillic": ("ru", "uk", "bg"),
    "arabic": ("ar", "fa"),
}
# A script's language when lingua cannot tell (Latin: the word votes below decide).
_SCRIPT_LANGUAGE = {
    "cyrillic": "ru",
    "greek": "el",
    "arabic": "ar",
    "hebrew": "he",
    "devanagari": "hi",
    "thai": "th",
    "hangul": "ko",
}
# lingua's confidence values are relative (they sum to 1 over the candidates); below this the top one
# is a guess (one name alone, "Paris", splits its mass over many languages)
MIN_CONFIDENCE = 0.12

_VOTES = {
    "en": set(
        "the is are was were and of to in what who how why when which did does do with for on about "
        "from between".split()
    ),
    "de": set(
        "der die das und ist sind nicht mit von ein eine einen wie wer warum welche welcher welches "
        "über für auf dem den des sich auch wurde wurden wann wo im zum zur gibt hat".split()
    ),
    "fr": set(
        "le les est et des du une qui quoi quel quelle quels quelles pour dans avec cette sont "
        "comment pourquoi où été au aux je vous nous il elle ce c'est qu'est-ce".split()
    ),
    "es": set(
        "el los las es y qué quién quiénes cuál cuáles cuándo dónde cómo por para con una son del fue "
        "está están lo al sobre".split()
    ),
}
_HAN = re.compile(rf"[{_CJK}]")
_KANA = re.compile(r"[\u3040-\u309f\u30a0-\u30ff\u31f0-\u31ff\uff66-\uff9f]")
_LATIN_WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)?")
_SCRIPT_NAMES = ("LATIN", "CYRILLIC", "GREEK", "ARABIC", "HEBREW", "DEVANAGARI", "THAI", "HANGUL")


def detect_language(question: str) -> str:
    """The question's language as an ISO 639-1 code (a key of LANGUAGE_NAMES; "en" when nothing tells).

    Chinese, Japanese and Korean by their script (kana: Japanese; Han alone: Chinese; Hangul:
    Korean). Words in the Latin, Cyrillic or Arabic script go to lingua-language-detector,
    restricted to that script's languages and built once, on the first such question. When lingua
    is absent or unsure (one word, a low confidence) the script decides: its language (Cyrillic:
    Russian, …), and for Latin the word votes (German, French, Spanish, else English). A question in
    plain English (ASCII, two English function words, none of another language's) is English
    without lingua: loading the Latin-script models takes seconds (README "Answer language")."""
    if not question or not question.strip():
        return "en"
    han = len(_HAN.findall(question))
    kana = len(_KANA.findall(question))
    words = _LATIN_WORD.findall(_KANA.sub(" ", _HAN.sub(" ", question)))
    if kana and han + kana >= len(words):
        return "ja"
    if han and han >= len(words) + kana:
        return "zh"
    script = _main_script(words)
    if script == "latin" and _plain_english(question, words):
        return "en"
    if len(words) >= 2 and script in _LINGUA_SCRIPTS:
        found = _lingua(_KANA.sub(" ", _HAN.sub(" ", question)), script)
        if found is not None:
            return found
    if script == "latin" or script is None:
        return _voted(question, words)
    return _SCRIPT_LANGUAGE[script]


def _main_script(words: list[str]) -> str | None:
    """The script most of the words are written in (lower case: "latin", "cyrillic", …)."""
    import unicodedata

    counts: dict[str, int] = {}
    for word in words:
        name = unicodedata.name(word[0], "")
        script = next((s for s in _SCRIPT_NAMES if name.startswith(s)), None)
        if script is not None:
            counts[script.lower()] = counts.get(script.lower(), 0) + 1
    return max(counts, key=lambda s: counts[s]) if counts else None


def _votes(question: str, words: list[str]) -> dict[str, int]:
    counts = dict.fromkeys(_VOTES, 0)
    for word in (w.lower().replace("’", "'") for w in words):
        for lang, vocab in _VOTES.items():
            if word in vocab:
                counts[lang] += 1
        if re.match(r"^(?:l|d|qu|c|j|n|s)'", word):
            counts["fr"] += 1
    if "¿" in question or "¡" in question:
        counts["es"] += 2
    return counts


def _plain_english(question: str, words: list[str]) -> bool:
    counts = _votes(question, words)
    return question.isascii() and counts["en"] >= 2 and not any(counts[lang] for lang in ("de", "fr", "es"))


def _voted(question: str, words: list[str]) -> str:
    """German, French or Spanish when their function words outvote English's, else English."""
    counts = _votes(question, words)
    best = max(("de", "fr", "es"), key=lambda lang: counts[lang])
    if counts[best] > counts["en"] and list(counts.values()).count(counts[best]) == 1:
        return best
    return "en"


_detectors: dict[str, object] = {}  # script -> its detector, or None when lingua is not installed
_detectors_lock = threading.Lock()


def _lingua(question: str, script: str) -> str | None:
    """lingua's language for the question among its script's LANGUAGE_NAMES, when lingua is sure enough."""
    detector = language_detector(script)
    if detector is None:
        return None
    values = detector.compute_language_confidence_values(question)
    if not values or values[0].value < MIN_CONFIDENCE:
        return None
    code = values[0].language.iso_code_639_1.name.lower()
    return code if code in LANGUAGE_NAMES else None


def warm_language_detectors() -> None:
    """Build every script's detector now. Building one holds the GIL (lingua's models load in
    native code: about 1 s for the Latin languages), so a server does it before it answers,
    not on the first question, when every request and `/health/live` would wait for it."""
    for script in _LINGUA_SCRIPTS:
        language_detector(script)


def language_detector(script: str = "latin"):
    """lingua's detector for the languages of `script` in _LINGUA_SCRIPTS (None without lingua),
    built once, on first use, with its models loaded (in parallel: faster than lingua's lazy loading;
    measured in README "Answer language")."""
    with _detectors_lock:
        if script not in _detectors:
            try:
                from lingua import IsoCode639_1, LanguageDetectorBuilder
            except ImportError:
                _detectors[script] = None
            else:
                codes = [getattr(IsoCode639_1, code.upper()) for code in _LINGUA_SCRIPTS[script]]
                builder = LanguageDetectorBuilder.from_iso_codes_639_1(*codes).with_preloaded_language_models()
                _detectors[script] = builder.build()
        return _detectors[script]
