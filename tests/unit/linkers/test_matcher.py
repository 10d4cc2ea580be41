"""The shared matcher: folding, word boundaries, capitals, tails, stop-list, and its Cypher twin."""

import unicodedata

import pytest

from graphrag_cypher.linkers.matcher import (
    LUCENE_STOP_WORDS,
    Matcher,
    build_name_table,
    fold_with_offsets,
    fulltext_query,
    java_pattern,
    load_stoplist,
)
from graphrag_cypher.text import clean_names, fold


def surfaces(matcher, text):
    return [(m.surface, m.key, m.targets) for m in matcher.find(text)]


def test_fold_drops_accents_and_case_like_java():
    assert fold("Alexandría") == "alexandria"
    assert fold("Dēlos") == fold("DELOS") == "delos"
    assert fold("Meydancıkkale") == "meydancikkale", "dotless i folds like Java's case-insensitive match"
    assert fold("ΣΟΦΟΣ") == fold("σοφος") == fold("σοφοσ")
    folded, origin = fold_with_offsets("Bābil!")
    assert folded == "babil!" and origin is None, "one folded character per character: positions kept"
    folded, origin = fold_with_offsets("Ba\u0304bil")  # decomposed: the mark disappears
    assert folded == "babil" and origin == [0, 1, 3, 4, 5]


def test_matches_on_word_boundaries_with_offsets_into_the_original_text():
    m = Matcher({"Babylon": ["b"], "Alexandria": ["a1", "a2"], "Dēlos": ["d"]})
    text = "At Babylon's gate; not Babylonia, nor xBabylon. From Alexandría to DÉLOS."
    found = m.find(text)
    assert [(f.surface, f.targets) for f in found] == [
        ("Babylon", ("b",)),
        ("Alexandría", ("a1", "a2")),
        ("DÉLOS", ("d",)),
    ]
    assert text[found[1].start : found[1].end] == "Alexandría"


def test_decomposed_accents_stay_in_the_surface():
    m = Matcher({"Babil": ["b"]})
    assert surfaces(m, "the mound Ba\u0304bil\u0304 rises") == [
        (unicodedata.normalize("NFC", "Ba\u0304bil\u0304"), "babil", ("b",))
    ]


def test_capital_rule_and_acronyms():
    m = Matcher({"Rome": ["r"], "Uri": ["u"]})
    assert surfaces(m, "rome and Rome") == [("Rome", "rome", ("r",))]
    assert surfaces(m, "ROME and the URI") == [], "short all-capitals words are acronyms"
    assert surfaces(Matcher({"Rome": ["r"]}, require_capital=False), "rome") == [("rome", "rome", ("r",))]


def test_joined_tokens_publishers_and_rulers_are_skipped():
    m = Matcher({"Egypte": ["e"], "London": ["l"], "Arsinoe": ["a"]})
    assert surfaces(m, "l'Egypte") == []
    assert surfaces(m, "London: Routledge. London 1998. London, 2004.") == []
    assert [s[0] for s in surfaces(m, "London, 2000 BC. London: the city. Arsinoe II. Arsinoe IIa")] == [
        "London",
        "London",
        "Arsinoe",
    ]
    assert len(Matcher({"London": ["l"]}, skip_tails=False).find("London: Routledge")) == 1
    # the country between: a publisher's "Oxford, UK: Blackwell", a report's "Cyrene, Libya: Final Reports"
    assert surfaces(m, "London, UK: Routledge. London, England 1998.") == []
    assert [s[0] for s in surfaces(m, "London, and Paris: both. London, the city.")] == ["London", "London"]


def test_name_table_rules():
    table = build_name_table(
        {"Ur": ["u"], "This": ["t"], "Well": ["w"], "Babylon": ["b1"], "BABYLON": ["b2"]},
        min_length=3,
        stoplist=frozenset({"well"}),
    )
    assert table.targets == {"babylon": ("b1", "b2")}, "names folding to the same key share targets"
    assert (table.too_short, table.stoplisted) == (1, 2)
    assert "this" in LUCENE_STOP_WORDS


def test_clean_names():
    assert clean_names(
        [
            "Contestania (region)",
            "Perinthus/Heraclea",
            "Medeon?",
            "*Kalasyrta",
            "‘Abone’",
            "A(n)dros",
            "Perinthus",
            " Kellenoi",
            "123",
        ]
    ) == ["Contestania", "Perinthus", "Heraclea", "Medeon", "Kalasyrta", "Abone", "Kellenoi"]


def test_default_stoplist_has_the_known_traps():
    stop = load_stoplist()
    for word in (
        "this",
        "are",
        "well",
        "same",
        "van",
        "die",
        "coin",
        "school",
        "cleopatra",
        "isis",
        "hermes",
        "saros",
        "taurus",
        "london",
        "paris",
        "york",
    ):
        assert word in stop or word in LUCENE_STOP_WORDS, word
    assert load_stoplist(default=False) == frozenset()


def test_extra_stoplist_file(tmp_path):
    extra = tmp_path / "stop.txt"
    extra.write_text("# mine\nUruk  # a comment\n\n", encoding="utf-8")
    assert "uruk" in load_stoplist([extra]) and "uruk" not in load_stoplist()


def test_fulltext_query_is_a_superset_shortlist():
    assert fulltext_query("babylon") == "babylon*"
    assert fulltext_query("tell el-amarna") == "tell* AND el* AND amarna*"
    assert fulltext_query("isle of man") == "isle* AND man*", "stop words are not in the index"
    assert fulltext_query("ba'albek") == "ba'albek*"
    assert fulltext_query("vii.8") == "vii* AND 8*"
    assert fulltext_query("ʿadan") == "*adan*"


@pytest.mark.parametrize(
    "text,expected",
    [
        ("At Babylon's gate", ["Babylon"]),
        ("Babylonia", []),
        ("l'Babylon", []),
        ("babylon", ["babylon"]),
        ("Babylon: Routledge", []),
        ("Babylon 1998", []),
        ("Babylon II", []),
        ("Babylon, 2000 BC", ["Babylon"]),
    ],
)
def test_java_pattern_agrees_with_the_matcher_on_simple_cases(text, expected):
    # Python's `regex` module speaks enough of Java's syntax (\p{..}, scoped flags) to check the pattern.
    regex = pytest.importorskip("regex")
    found = [m.group(1) for m in regex.finditer(java_pattern("babylon").replace("(?iu:", "(?i:"), text)]
    assert found == expected
    assert [m.surface for m in Matcher({"Babylon": ["b"]}, require_capital=False).find(text)] == expected


def test_fold_by_translate_table_equals_folding_each_character():
    from graphrag_cypher.text import fold_char

    text = "".join(chr(i) for i in range(0x20, 0x3000) if chr(i).isprintable() or unicodedata.category(chr(i)) == "Mn")
    assert fold(text) == "".join(fold_char(ch) for ch in text)
    one_to_one = "".join(ch for ch in text if len(fold_char(ch)) == 1)
    folded, origin = fold_with_offsets(one_to_one)
    assert origin is None and folded == "".join(fold_char(ch) for ch in one_to_one)
    folded, origin = fold_with_offsets("Ṭell ʿAṭšāna\u0301 ß")  # a combining mark: offsets needed
    assert folded == "tell ʿatsana ß" and origin == [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 14]


def test_folding_keeps_word_characters_apart_from_the_rest_for_every_code_point():
    """The bounded text the automaton reads relies on two facts about folding: a folded
    character folds to itself, and it is a word character exactly when the character it
    came from is one (so boundaries in the text are boundaries in the folded text)."""
    import sys

    from graphrag_cypher.text import fold_char, is_word_char

    broken = []
    for code in range(sys.maxunicode + 1):
        if 0xD800 <= code <= 0xDFFF:
            continue
        ch = chr(code)
        word = is_word_char(ch)
        if any(fold_char(c) != c or is_word_char(c) != word for c in fold_char(ch)):
            broken.append(hex(code))
    assert broken == []


def test_names_with_the_same_bounded_form_and_overlapping_names():
    m = Matcher(
        {"Tell el-Amarna": ["a"], "Tell el Amarna": ["b"], "Asia": ["c"], "Asia Minor": ["d"]}, require_capital=False
    )
    assert surfaces(m, "Tell el-Amarna, Tell el Amarna, Tell el–Amarna; Asia Minor.") == [
        ("Tell el-Amarna", "tell el-amarna", ("a",)),
        ("Tell el Amarna", "tell el amarna", ("b",)),
        ("Asia", "asia", ("c",)),
        ("Asia Minor", "asia minor", ("d",)),
    ]
    assert surfaces(m, "Ba\u0304bil Asia\u0304 Minor") == [  # decomposed: the slow path, same result
        ("Asi\u0101", "asia", ("c",)),
        ("Asi\u0101 Minor", "asia minor", ("d",)),
    ]


def test_bounded_text_in_stretches_equals_translating_the_whole():
    from graphrag_cypher.linkers.matcher import _BOUNDED, _bounded_text

    for text in ("", "Plain ASCII, Rome.", "Ṭell ʿAṭšāna — Délos; ΣΟΦΟΣ!", "é", "aé", "éa", "Ba\u0304bil ß"):
        assert _bounded_text(text) == text.translate(_BOUNDED)


def test_names_a_full_text_index_cannot_shortlist_are_not_looked_for():
    table = build_name_table({"Babylon": ["b"], "1204": ["y"], "-*-": ["x"], "a the": ["s"], "Ἀθῆναι": ["g"]})
    assert set(table.targets) == {"babylon", "1204"} and table.unsearchable == 3, (
        "no ASCII letter or digit to shortlist"
    )
