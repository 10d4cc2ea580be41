"""contains_word: the word-boundary test of a question's entity names, without a regex per name."""

from __future__ import annotations

import random
import re

from graphrag_cypher.text import contains_word, word_regex


def test_names_are_found_on_word_boundaries_only():
    assert contains_word("who killed eddard stark?", "eddard stark")
    assert not contains_word("who is edrick's father?", "edric")
    assert contains_word("the bubye river, zimbabwe", "zimbabwe")
    assert not contains_word("alexandria_2 was", "alexandria")  # "_" is a word character
    assert not contains_word("route66", "route")
    assert contains_word("谁杀了张伟", "张伟")  # Han characters need no boundary
    assert contains_word("谁杀了eddard stark", "eddard stark")
    assert not contains_word("a stark", "")
    assert contains_word("stark stark-ish starker stark", "stark")  # a later occurrence counts


def test_it_agrees_with_the_word_regex_on_random_texts():
    alphabet = ["a", "b", "é", "_", "1", " ", "-", "张", "伟", "'", "ß"]
    rng = random.Random(3)
    for _ in range(5000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 12)))
        name = "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 3)))
        assert contains_word(text, name) == bool(re.search(word_regex(name), text)), (text, name)
