"""The rules `dates.py` reads time expressions by: date arithmetic, the vocabulary (English and
Chinese month names, numbers, units), absolute points ("a point": a day, a month, a quarter, a
half, a decade or a year) and one handler per rule, in ``RULES``, the order they are tried in.
What each expression means is told in `dates.py`'s docstring."""

from __future__ import annotations

import calendar
import datetime
import re
from collections.abc import Callable

Date = datetime.date


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
RULES: list[tuple[re.Pattern, Callable[[re.Match, Date], _Range | None]]] = [
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
