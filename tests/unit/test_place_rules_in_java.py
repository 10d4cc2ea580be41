"""The in-database place linker (the plugin's Java port, `graphrag.link.places`) reads the same
rules as the Python engine: every regex of linkers/contexts.py and linkers/disambiguation.py is
in the Java sources as the very same pattern text and case flag (`PyText.re(pattern,
ignoreCase)`), and no other; the numbers the decisions read are the same (the word sets are the
lexicon's files, read by both: tests/unit/test_lexicon.py).
The parity tests compare the engines' links on data; this catches a rule changed on one side
that the data does not exercise."""

import re
from pathlib import Path

from graphrag_cypher.linkers import contexts, disambiguation, matcher, places

JAVA = Path(__file__).resolve().parents[2] / "procedures" / "graphrag-procedures" / "src" / "main" / "java"
SOURCES = JAVA / "org" / "graphrag" / "procedures"
_LITERAL = re.compile(r'"((?:[^"\\]|\\.)*)"')


def _unescape(literal: str) -> str:
    return re.sub(r"\\(u[0-9a-fA-F]{4}|.)", lambda m: chr(int(m[1][1:], 16)) if m[1][0] == "u" else m[1], literal)


def java_patterns(*names: str) -> set[tuple[str, bool]]:
    """(pattern, ignore case) of every `PyText.re(...)` call in these Java files."""
    found = set()
    for name in names:
        text = (SOURCES / name).read_text(encoding="utf-8")
        for call in re.finditer(r"PyText\.re\(\s*((?:\"(?:[^\"\\]|\\.)*\"\s*\+?\s*)+),\s*(true|false)\)", text):
            found.add(("".join(_unescape(lit) for lit in _LITERAL.findall(call[1])), call[2] == "true"))
    return found


def python_patterns() -> set[tuple[str, bool]]:
    compiled = [
        getattr(module, name)
        for module in (contexts, disambiguation)
        for name in dir(module)
        if isinstance(getattr(module, name), re.Pattern)
    ]
    compiled += [p for _, p in contexts._CUES_BEFORE + contexts._CUES_AFTER]
    compiled += [p for _, p in disambiguation._KIND_PATTERNS]
    found = {(p.pattern, bool(p.flags & re.I)) for p in compiled}
    # written inline in disambiguation.profile
    return found | {(r"\(([^()]*)\)", False), (r"(?<=[.;])\s", False)}


def test_every_rule_regex_is_the_same_in_java():
    java = java_patterns("PlaceContexts.java", "PlaceDecisions.java")
    python = python_patterns()
    assert python - java == set(), "changed in Python, not in the Java port"
    assert java - python == set(), "in the Java port, not in Python"


def test_joiners_and_numbers_are_the_same_in_java():
    linker = (SOURCES / "PlaceLinker.java").read_text(encoding="utf-8")
    joiners = re.search(r'String JOINERS = "(.*?)";', linker)[1]
    assert set(_unescape(joiners)) == set(matcher.JOINERS)
    numbers = {
        ("PlaceContexts.java", "WINDOW"): contexts.WINDOW,
        ("PlaceContexts.java", "NEAR"): contexts.NEAR,
        ("PlaceDecisions.java", "SAME_PLACE_KM"): disambiguation.SAME_PLACE_KM,
        ("PlaceDecisions.java", "FAR_KM"): disambiguation.FAR_KM,
        ("PlaceDecisions.java", "SHORT_NAME"): disambiguation.SHORT_NAME,
        ("PlaceDecisions.java", "DESCRIBED"): disambiguation.DESCRIBED,
        ("PlaceLinker.java", "MAX_CANDIDATES"): places.MAX_CANDIDATES,
    }
    for (name, constant), value in numbers.items():
        text = (SOURCES / name).read_text(encoding="utf-8")
        assert float(re.search(rf"{constant} = ([0-9.]+);", text)[1]) == value, constant
    assert places.ENGINE_SOURCES["procedure"] in linker
