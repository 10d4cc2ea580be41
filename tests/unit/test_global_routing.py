"""Which questions take the global route, and the pieces of a global answer that need no graph:
the term's forms, the level choice, a map reply read."""

import json
import re
from pathlib import Path

import pytest

from graphrag_cypher.retrieval.global_search import (
    _parse_points,
    choose_level,
    classify,
    forced,
    forms,
    java_pattern,
    python_pattern,
)

CORPORA = ("grimm", "isaw", "awoiaf", "enwiki")
DATA = Path(__file__).resolve().parents[3] / "shared" / "data" / "qa"

# a sample of MuSiQue and HotpotQA questions (local: the answer is in a few passages)
LOCAL = [
    "What is the main international airport in birth place of the director of The Girl Who Kicked the Hornets' Nest?",
    "What body of water is near the location where the Siege of Cassel took place?",
    "What is the continental limit of the continent with the lowest average temperature?",
    "What kind of university did the author of Alexander and the Terrible, Horrible, No Good, Very Bad Day attend?",
    "The basis of the European Trade Union Confederation's jurisdiction began with the signing of what treaty?",
    "What is the most popular hotel in Gisvi's city of birth?",
    "Who is the sibling of the performer of Decade?",
    "Who formed and first arrived to the colony that became the state whose official sport is jousting?",
    "From 1945-1949 Dick Humbert played for an NFL team based in what state?",
    "Are King Vidor and Géza von Cziffra both American directors?",
    "Are both magazines, the Woman's Viewpoint and Pick Me Up, British publications?",
    'The writer of the song  "Death of Samantha" was the second wife of what singer?',
    "Who performed in both Welcome to the Show and the band f(x)?",
    "Who was the first president of the association which published Journal of Psychotherapy Integration?",
    # local questions with words global ones use
    "What is the main theme of the novel Beloved?",
    "What themes does the novel Beloved explore?",
    "What is the story of Rapunzel about?",
    "What is the film about?",
    "How does the author describe the war?",
    "What did the governor say about the harbour?",
    "What does the paper say about Alexandria?",
    "What is known about the harbour of Ostia?",
    "What is the main subject of the painting Guernica?",
    "Who made the silver lantern, and who stole it?",
    # structured: every document that mentions a term
    "Which tales mention a witch?",
    "How many of the ISAW articles mention Alexandria?",
    "In which documents is Alexandria mentioned?",
    "哪些文章提到了深圳？",
    "谁杀了张伟？",
]

THEMES = [
    "What are the main themes of the Grimm tales?",
    "What are the recurring motifs in these fairy tales?",
    "Which themes run through the AWOIAF chapters?",
    "What topics come up most often in the papers?",
    "Give me an overview of the ISAW papers.",
    "An overview of the corpus, please.",
    "Summarize the tales.",
    "Summarise the ISAW articles for me",
    "Can you sum up the stories?",
    "What are the tales about?",
    "What's this collection about?",
    "What do the chapters mostly deal with?",
    "What are the key ideas across all of the articles?",
    "What major and recurring subjects do the documents share?",
    "What are the common lessons or morals of the fables?",
    "Themes in the Grimm tales?",
    "What patterns recur across the chapters?",
    "What is the overall message of the tales?",
    "What lessons do the fables teach?",
    "Describe the dominant themes in Grimm's fairy tales",
    "What subjects do the ISAW papers cover?",
    "这些文章主要讲什么？",
    "What kinds of stories are in the collection?",
    "What is the big picture of the ISAW papers?",
    "What are the most common topics in the ISAW papers?",
    "格林童话的主要主题是什么？",
    "这些论文的主题有哪些？",
    "总结一下这些故事",
    "請概述這些文章",
    "这些故事都讲了些什么？",
]

TOPICS = [
    ("What do the ISAW papers say about harbours?", "harbours"),
    ("What is said about witches in the tales?", "witches"),
    ("What is said about the sea?", "sea"),
    ("How do the stories portray wolves?", "wolves"),
    ("How are kings depicted in the Grimm tales?", "kings"),
    ("What do the AWOIAF chapters say about dragons?", "dragons"),
    ("What do the chapters of A Song of Ice and Fire say about bastards?", "bastards"),
    ("What do the papers in the ISAW series say about coins?", "coins"),
    ("What does isaw say about Alexandria?", "Alexandria"),
    ("What can the articles tell us about pottery?", "pottery"),
    ("Tell me what the tales have to say about stepmothers.", "stepmothers"),
    ("What is written about the sea in the papers?", "sea"),
    ("What do the documents say about the role of women?", "women"),
    ("How do the Grimm fairy tales describe the forest?", "forest"),
    ("What do the tales say about witches and how they are punished?", "witches"),
    ("What is known about Roman roads in the ISAW articles?", "Roman roads"),
    ("Give me an overview of harbours in the ISAW papers", "harbours"),
    ("Summarize what the chapters say about the Night's Watch", "Night's Watch"),
    ("How is gold treated across the stories?", "gold"),
    ("What did the articles report on amphorae?", "amphorae"),
    ("What do the Grimm tales reveal about family life?", "family life"),
    ("What picture of Alexandria emerges from the ISAW papers?", "Alexandria"),
    ("In the tales, how are stepmothers depicted?", "stepmothers"),
    ("What role do witches play in the fairy tales?", "witches"),
    ("What do we learn about dragons from the AWOIAF chapters?", "dragons"),
    ("What are the papers' views on trade?", "trade"),
    ("How do the documents talk about slavery?", "slavery"),
    ("What information do the papers give about Rome?", "Rome"),
    ("Find everything the tales say about wolves", "wolves"),
    ("What's said about dragons in the chapters?", "dragons"),
    ("Tell me about witches in the tales", "witches"),
    ("Summarize the tales' treatment of witches", "witches"),
    ("What do Grimm's fairy tales say about wolves?", "wolves"),
    ("What do the tales say about kings' daughters?", "kings' daughters"),
    ("What is said about the witches’ houses in the tales?", "witches’ houses"),
    ("How are the giants' castles described in the fairy tales?", "giants' castles"),
    ("这些故事关于女巫说了什么？", "女巫"),
    ("格林童话里关于狼的描写有哪些？", "狼"),
    ("童话中如何描写狼？", "狼"),
    ("关于港口，这些论文有什么内容？", "港口"),
    ("文章是如何描写亚历山大的？", "亚历山大"),
    ("关于狼，童话里说了什么？", "狼"),
    ("这些文章怎么描述港口？", "港口"),
    ("论文中对亚历山大港有什么描述？", "亚历山大港"),
]


@pytest.mark.parametrize("question", LOCAL)
def test_local_questions_are_not_global(question):
    assert classify(question, CORPORA) is None


@pytest.mark.parametrize("question", THEMES)
def test_theme_questions(question):
    found = classify(question, CORPORA)
    assert found is not None and found.family == "themes", found


@pytest.mark.parametrize("question, term", TOPICS)
def test_topic_questions_and_their_term(question, term):
    found = classify(question, CORPORA)
    assert found is not None and (found.family, found.term) == ("topic", term), found


@pytest.mark.real_data
@pytest.mark.skipif(not DATA.exists(), reason=f"the QA data sets are not at {DATA}")
def test_no_musique_or_hotpotqa_question_is_global():
    questions = [q["question"] for q in json.loads((DATA / "musique_train.json").read_text("utf-8"))]
    questions += [
        d["question"]
        for q in json.loads((DATA / "musique_train.json").read_text("utf-8"))
        for d in q["question_decomposition"]
    ]
    questions += [q["question"] for q in json.loads((DATA / "hotpotqa_train.json").read_text("utf-8"))]
    assert len(questions) > 400
    assert [q for q in questions if classify(q, CORPORA)] == []


def test_a_corpus_name_as_the_question_writes_it():
    found = classify("What does ISAW papers say about roads?", ["isaw-papers"])
    assert found is not None and found.term == "roads"
    assert classify("What does isaw_papers say about roads?", ["isaw-papers"]) is not None


def test_mode_global_takes_a_topic_word_or_themes():
    assert forced("wolves", CORPORA, ["wolves"]).term == "wolves"
    assert forced("the tales", CORPORA, ["tales"]).family == "themes"
    assert forced("What do the tales say about wolves?", CORPORA, ["tales", "wolves"]).term == "wolves"
    assert forced("Tell me about this collection", CORPORA, ["collection"]).family == "themes"


@pytest.mark.parametrize(
    "term, expected",
    [
        ("witch", ["witch", "witches"]),
        ("witches", ["witches", "witch"]),
        ("wolves", ["wolves", "wolf"]),
        ("wolf", ["wolf", "wolves"]),
        ("harbour", ["harbour", "harbours", "harbor", "harbors"]),
        ("harbours", ["harbours", "harbour", "harbors", "harbor"]),
        ("centre", ["centre", "centres", "center", "centers"]),
        ("door", ["door", "doors"]),
        ("huntsmen", ["huntsmen", "huntsman"]),
        ("huntsman", ["huntsman", "huntsmen"]),
        ("german", ["german", "germans"]),
        ("cities", ["cities", "city"]),
        ("city", ["city", "cities"]),
        ("women", ["women", "woman"]),
        ("Roman roads", ["Roman roads", "Roman road"]),
        ("Alexandria", ["Alexandria"]),
        ("港口", ["港口"]),
        ("glass", ["glass", "glasses"]),
        # a possessive before the last word takes both numbers; the all-singular form comes second
        ("kings' sons", ["kings' sons", "king's son", "king's sons", "kings' son"]),
        ("king’s son", ["king's son", "kings' son", "king's sons", "kings' sons"]),
        (
            "the witches' houses",
            ["the witches' houses", "the witch's house", "the witch's houses", "the witches' house"],
        ),
    ],
)
def test_forms(term, expected):
    assert forms(term) == expected


def test_patterns_match_on_word_boundaries():
    pattern = python_pattern(forms("wolf"))
    text = "Wolfram saw a werewolf; the wolf's den held three wolves, wolfish and grey. WOLF!"
    assert [m.group(0) for m in pattern.finditer(text)] == ["wolf", "wolves", "WOLF"]
    assert java_pattern(["wolf", "wolves"]) == r"(?iU)(?<!\w)(?:wolves|wolf)(?!\w)"
    assert java_pattern(["港口"]) == "(?iU)(?:港口)"
    assert re.search(python_pattern(["Roman roads"]).pattern, "the roman\n roads ran", re.I)
    sons = python_pattern(forms("kings' sons"))
    assert [m.group(0) for m in sons.finditer("the kings’ sons, the king's son, the kings sons")] == [
        "kings’ sons",
        "king's son",
    ], "either apostrophe; no possessive, no match"


def test_level_nearest_eight_with_at_least_five():
    def rows(level, n, chunks=10):
        return [
            {"id": f"L{level}-{i}", "level": level, "inScopeChunks": chunks, "inScopeDocuments": 2} for i in range(n)
        ]

    level, ranked, why = choose_level(rows(0, 3) + rows(1, 7) + rows(2, 20), 300)
    assert level == 1 and len(ranked) == 7 and "level 1: 7 communities" in why
    level, _, _ = choose_level(rows(0, 2) + rows(1, 4), 100)
    assert level == 1, "no level has 5: the nearest to 8"
    level, ranked, _ = choose_level(rows(0, 4) + rows(1, 9, chunks=1) + rows(1, 5), 100)
    assert level == 1 and len(ranked) == 5, "communities with under 2 in-scope chunks do not count"
    assert choose_level([], 0)[0] is None


def test_map_replies_are_read_leniently():
    assert _parse_points('```json\n{"points": [{"description": "A [T1]", "score": 80}]}\n```') == [
        {"description": "A [T1]", "score": 80}
    ]
    assert _parse_points('[{"point": "B", "score": "250"}, {"text": "", "score": 3}, 7]') == [
        {"description": "B", "score": 100}
    ]
    assert _parse_points("no JSON here") == []


def test_scope_from_the_question_or_the_corpus_option():
    from graphrag_cypher.retrieval.base import Filters
    from graphrag_cypher.retrieval.global_search import scope_of
    from graphrag_cypher.retrieval.structured import Catalog

    cat = Catalog(
        {}, [{"labels": ["Story"], "corpus": "grimm", "documents": 62}, {"labels": [], "corpus": "isaw-papers"}]
    )
    tales = scope_of("What are the main themes of the Grimm tales?", cat, Filters())
    assert (tales.noun, tales.corpus, tales.labels) == ("tales", "grimm", ["Story"])
    papers = scope_of("What do the ISAW papers say about harbours?", cat, Filters())
    assert (papers.noun, papers.corpus, papers.labels) == ("papers", "isaw-papers", None)
    assert "Story" in papers.exclude, "papers are whatever is not plainly something else"
    chosen = scope_of("What are the main themes?", cat, Filters(corpus="grimm", date_from="1800-01-01"))
    assert (chosen.noun, chosen.corpus, chosen.params()["from"]) == ("documents", "grimm", "1800-01-01")
