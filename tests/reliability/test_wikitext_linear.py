"""Wikitext leftovers are scrubbed in linear time: a page full of unclosed `<ref>` tags (hostile
or just broken) must not make the leftover-ref cleanup look for a closing tag from each of them
to the end of the page. Ratios side by side in one process, CPU time, never an absolute timing."""

from __future__ import annotations

import random
import re

from graphrag_cypher.loaders.mediawiki import _strip_refs, _tidy

from .test_sentence_linear import within_ratio

# What the cleanup removed before it was rewritten as one pass.
OLD_RULE = re.compile(r"<ref[^>]*/>|<ref[^>]*>.*?</ref>", re.IGNORECASE | re.DOTALL)


def broken_page(refs: int) -> str:
    return "".join(f"Ostia was the harbour of Rome <ref>note {i} left open " for i in range(refs))


def test_sixteen_times_the_unclosed_refs_take_less_than_forty_times_as_long():
    slow = within_ratio(_tidy, broken_page(500), broken_page(8000))
    assert slow is None, f"8000 unclosed refs took more than 40x as long as 500 ({slow})"


def test_refs_are_removed_as_the_old_rule_removed_them():
    pieces = ["<ref>", "</ref>", "<ref name=a/>", "<REF x>", "</REF>", "a", " b ", ">", "<", "/", "<references/>", "\n"]
    rng = random.Random(7)
    for _ in range(20000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 30)))
        assert _strip_refs(text) == OLD_RULE.sub("", text), text
