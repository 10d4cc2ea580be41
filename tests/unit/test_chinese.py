"""Script detection and conversion of answers (OpenCC), citations untouched."""

import pytest

from graphrag_cypher.chinese import StreamConverter, choose, convert_text, script_of


@pytest.mark.parametrize(
    "question, script",
    [
        ("上個月港口發生了什麼事?", "traditional"),
        ("上个月港口发生了什么事?", "simplified"),
        ("What happened last month?", None),
        ("東京の天気はどうですか", None),  # kana: Japanese, never converted
        ("中文", None),  # the same in both scripts
    ],
)
def test_script_of(question, script):
    assert script_of(question) == script


def test_choose_follows_the_question_unless_told():
    assert choose("誰做了銀燈籠?").applied == "s2t"
    assert choose("谁做了银灯笼?").applied == "t2s"
    assert choose("Who made it?").applied is None
    assert choose("誰做了銀燈籠?", "none").applied is None
    assert choose("Who made it?", "s2twp").applied == "s2twp"
    with pytest.raises(ValueError, match="unknown conversion"):
        choose("x", "zh")


def test_brackets_are_never_converted():
    assert convert_text("银灯笼 [银灯笼; T1] 头发", "s2t") == "銀燈籠 [银灯笼; T1] 頭髮"


def test_a_stream_converts_whole_clauses_and_never_splits_a_citation():
    out: list[str] = []
    stream = StreamConverter("s2t", out.append)
    for piece in ["银灯", "笼是铁匠[T", "1]做的。后来", "被盗了[T2, T3]"]:
        stream.feed(piece)
    stream.close()
    assert out == ["銀燈籠是鐵匠[T1]做的。", "後來被盜了[T2, T3]"]
    untouched: list[str] = []
    plain = StreamConverter(None, untouched.append)
    plain.feed("银灯笼")
    plain.close()
    assert untouched == ["银灯笼"]
