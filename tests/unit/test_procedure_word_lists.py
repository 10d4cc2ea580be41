"""The short word lists the place linker's rules use are written in Python and in Java (the
procedure's port); the long ones are linkers/*.txt, one file both read. The inline ones must agree."""

import re
from pathlib import Path

import pytest

from graphrag_cypher.linkers import contexts, disambiguation

JAVA = Path(__file__).resolve().parents[2] / "procedures/graphrag-procedures/src/main/java/org/graphrag/procedures"


def java_set(file: str, name: str) -> set[str]:
    source = (JAVA / file).read_text("utf-8")
    found = re.search(rf"\b{name} = Set\.of\((.*?)\);", source, re.S)
    assert found, f"{name} is not a Set.of in {file}"
    body = found.group(1)
    block = re.search(r'"""(.*?)"""', body, re.S)
    return set(block.group(1).split()) if block else set(re.findall(r'"([^"]*)"', body))


@pytest.mark.parametrize(
    "file, name, python",
    [
        ("PlaceContexts.java", "PLACE_OF_WORDS", contexts.PLACE_OF_WORDS),
        ("PlaceContexts.java", "GENERIC", contexts.GENERIC),
        ("PlaceContexts.java", "LINK_WORDS", contexts._LINK_WORDS),
        ("PlaceDecisions.java", "AREA_KINDS", disambiguation.AREA_KINDS),
    ],
)
def test_inline_word_lists_are_the_same_in_both_languages(file, name, python):
    assert java_set(file, name) == set(python)
