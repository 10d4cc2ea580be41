"""The one accent fold and normName rule, against the case file the Java suite reads too."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from graphrag_cypher.text import fold, fold_char, norm_name

CASES = Path(__file__).resolve().parents[1] / "fixtures" / "fold_cases.tsv"


def _unescape(field: str) -> str:
    return re.sub(
        r"\\(u[0-9a-fA-F]{4}|t|\\)",
        lambda m: "\t" if m.group(1) == "t" else "\\" if m.group(1) == "\\" else chr(int(m.group(1)[1:], 16)),
        field,
    )


def fold_cases() -> list[tuple[str, str, str, str]]:
    rows = []
    for line in CASES.read_text("utf-8").splitlines():
        if line and not line.startswith("#"):
            text, folded, normed, note = line.split("\t")
            rows.append((_unescape(text), _unescape(folded), _unescape(normed), note))
    return rows


@pytest.mark.parametrize("text,folded,normed,note", fold_cases(), ids=[row[3] for row in fold_cases()])
def test_fold_and_norm_name_agree_with_the_shared_cases(text, folded, normed, note):
    assert fold(text) == folded
    assert norm_name(text) == normed
    assert fold(folded) == folded and norm_name(normed) == normed


def test_the_case_file_covers_the_hard_characters():
    inputs = "".join(row[0] for row in fold_cases())
    for ch in "ςıİßẞﬃＡ\u0304東한ǅſ":
        assert ch in inputs, f"no case with {ch!r}"


def test_folding_never_makes_one_character_more_than_its_decomposition():
    # What keeps positions: ß, ligatures and fullwidth letters stay one character each.
    for ch in "ßẞﬃﬁＡ１ǅ½":
        assert len(fold_char(ch)) == 1, ch
    assert fold("Straße") != "strasse" and norm_name("Oﬃce") == "oﬃce"


def test_norm_name_of_the_kg():
    assert norm_name("Dawn-Fang") == norm_name("dawnfang") == "dawnfang"
    assert norm_name("  Zoë  O'Hara ") == "zoe ohara"
    assert norm_name(None) == "" and norm_name("Meydancıkkale") == "meydancikkale"
