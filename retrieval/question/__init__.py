"""Question analysis: time ranges, relation routing, search keywords and language, and the
entities a question names.

- dates.py     — time expressions: ``parse_time_range``, ``strip_time_expression``, ``DateRange``
                 (the rules they read by in date_rules.py)
- relations.py — relation phrases: ``route`` ("how are A and B related") and ``Route``
- keywords.py  — ``keywords``: content words for full-text search
- language.py  — ``detect_language``, ``LANGUAGE_NAMES``, the lingua detectors
- analyzer.py  — ``QuestionAnalyzer``: all of the above for one question, with the entities it
                 names looked up in the graph

All but analyzer.py is pure Python, no database (the language is told by lingua-language-detector
where it is installed). Everything here is heuristic and deliberately conservative: when in doubt
a question is left alone.

The name ``keywords`` here is the function, not its module (reach the module's other names with
``from graphrag_cypher.retrieval.question.keywords import ...``).
"""

from __future__ import annotations

from .analyzer import QuestionAnalyzer
from .dates import DateRange, parse_time_range, strip_time_expression
from .keywords import keywords
from .language import LANGUAGE_NAMES, detect_language, warm_language_detectors
from .relations import Route, route

__all__ = [
    "DateRange",
    "LANGUAGE_NAMES",
    "QuestionAnalyzer",
    "Route",
    "detect_language",
    "keywords",
    "parse_time_range",
    "route",
    "strip_time_expression",
    "warm_language_detectors",
]
