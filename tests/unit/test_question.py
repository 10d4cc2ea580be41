import dataclasses
import datetime

import pytest

from graphrag_cypher.retrieval.question import (
    DateRange,
    Route,
    detect_language,
    keywords,
    parse_time_range,
    route,
    strip_time_expression,
)

D = datetime.date
TODAY = D(2026, 11, 30)  # a Monday
THU = D(2026, 12, 3)  # a Thursday

# (question, today, expected start, expected end)
TIME_CASES = [
    # days and calendar periods
    ("What happened today?", TODAY, D(2026, 11, 30), D(2026, 11, 30)),
    ("What happened yesterday?", TODAY, D(2026, 11, 29), D(2026, 11, 29)),
    ("Any news this week?", TODAY, D(2026, 11, 30), D(2026, 11, 30)),
    ("Any news this week?", THU, D(2026, 11, 30), D(2026, 12, 3)),
    ("What changed last week?", TODAY, D(2026, 11, 23), D(2026, 11, 29)),
    ("What changed last week?", THU, D(2026, 11, 23), D(2026, 11, 29)),
    ("Sales this month", TODAY, D(2026, 11, 1), D(2026, 11, 30)),
    ("Sales last month", TODAY, D(2026, 10, 1), D(2026, 10, 31)),
    ("Sales LAST MONTH", D(2026, 3, 31), D(2026, 2, 1), D(2026, 2, 28)),
    ("Sales last month", D(2024, 3, 10), D(2024, 2, 1), D(2024, 2, 29)),
    ("Sales last month", D(2026, 1, 10), D(2025, 12, 1), D(2025, 12, 31)),
    ("Papers this year", TODAY, D(2026, 1, 1), D(2026, 11, 30)),
    ("Papers from last year", TODAY, D(2025, 1, 1), D(2025, 12, 31)),
    ("Revenue this quarter", TODAY, D(2026, 10, 1), D(2026, 11, 30)),
    ("Revenue last quarter", TODAY, D(2026, 7, 1), D(2026, 9, 30)),
    ("Revenue last quarter", D(2026, 2, 1), D(2025, 10, 1), D(2025, 12, 31)),
    # rolling periods
    ("What happened in the past 3 months?", TODAY, D(2026, 8, 30), D(2026, 11, 30)),
    ("Outages in the last 3 days", TODAY, D(2026, 11, 27), D(2026, 11, 30)),
    ("Outages over the past two weeks", TODAY, D(2026, 11, 16), D(2026, 11, 30)),
    ("Trends over the past 2 years", TODAY, D(2024, 11, 30), D(2026, 11, 30)),
    ("Hires in the past twelve months", TODAY, D(2025, 11, 30), D(2026, 11, 30)),
    ("Errors in the last 24 hours", TODAY, D(2026, 11, 29), D(2026, 11, 30)),
    ("Launches in the past week", TODAY, D(2026, 11, 23), D(2026, 11, 30)),
    ("Launches in the past month", TODAY, D(2026, 10, 30), D(2026, 11, 30)),
    ("Launches in the past year", TODAY, D(2025, 11, 30), D(2026, 11, 30)),
    ("Growth over the last decade", TODAY, D(2016, 11, 30), D(2026, 11, 30)),
    ("past 1 month", D(2024, 3, 31), D(2024, 2, 29), D(2024, 3, 31)),
    ("past 1 month", D(2026, 5, 31), D(2026, 4, 30), D(2026, 5, 31)),
    ("past 3 months", D(2025, 5, 31), D(2025, 2, 28), D(2025, 5, 31)),
    ("past year", D(2024, 2, 29), D(2023, 2, 28), D(2024, 2, 29)),
    ("What has Acme recently announced?", TODAY, D(2026, 10, 31), D(2026, 11, 30)),
    ("recent papers on graphs", TODAY, D(2026, 10, 31), D(2026, 11, 30)),
    # quarters, halves, decades
    ("Revenue in 2023 Q4", TODAY, D(2023, 10, 1), D(2023, 12, 31)),
    ("Revenue in Q4 2023", TODAY, D(2023, 10, 1), D(2023, 12, 31)),
    ("Revenue for Q4 of 2023", TODAY, D(2023, 10, 1), D(2023, 12, 31)),
    ("Revenue in the fourth quarter of 2023", TODAY, D(2023, 10, 1), D(2023, 12, 31)),
    ("q1 2024 results", TODAY, D(2024, 1, 1), D(2024, 3, 31)),
    ("H1 2024 results", TODAY, D(2024, 1, 1), D(2024, 6, 30)),
    ("the second half of 2024", TODAY, D(2024, 7, 1), D(2024, 12, 31)),
    ("Music in the 1990s", TODAY, D(1990, 1, 1), D(1999, 12, 31)),
    # named months
    ("What happened last September?", TODAY, D(2026, 9, 1), D(2026, 9, 30)),
    ("What happened last Sept?", D(2026, 9, 15), D(2025, 9, 1), D(2025, 9, 30)),
    ("What happened last November?", TODAY, D(2025, 11, 1), D(2025, 11, 30)),
    ("What happened last December?", TODAY, D(2025, 12, 1), D(2025, 12, 31)),
    ("What happened this March?", TODAY, D(2026, 3, 1), D(2026, 3, 31)),
    ("What happened in September?", D(2026, 9, 15), D(2026, 9, 1), D(2026, 9, 30)),
    ("What happened in May?", TODAY, D(2026, 5, 1), D(2026, 5, 31)),
    ("What happened in March 2024?", TODAY, D(2024, 3, 1), D(2024, 3, 31)),
    ("February 2024 incidents", TODAY, D(2024, 2, 1), D(2024, 2, 29)),
    ("Events of Sept. 2023", TODAY, D(2023, 9, 1), D(2023, 9, 30)),
    # open and closed ranges
    ("Films since 2020", TODAY, D(2020, 1, 1), D(2026, 11, 30)),
    ("Films since March 2024", TODAY, D(2024, 3, 1), D(2026, 11, 30)),
    ("Films made before 2020", TODAY, None, D(2019, 12, 31)),
    ("Films made before March 2024", TODAY, None, D(2024, 2, 29)),
    ("Films made after 2020", TODAY, D(2021, 1, 1), None),
    ("Films made between 2019 and 2021", TODAY, D(2019, 1, 1), D(2021, 12, 31)),
    ("Films from 2019 to now", TODAY, D(2019, 1, 1), D(2026, 11, 30)),
    ("Logs from 2024-01-01 to 2024-02-15", TODAY, D(2024, 1, 1), D(2024, 2, 15)),
    # years and days
    ("What happened in 2023?", TODAY, D(2023, 1, 1), D(2023, 12, 31)),
    ("Who led the team during 2023?", TODAY, D(2023, 1, 1), D(2023, 12, 31)),
    ("the budget of 2023", TODAY, D(2023, 1, 1), D(2023, 12, 31)),
    ("reports from 2023 about ports", TODAY, D(2023, 1, 1), D(2023, 12, 31)),
    ("Who won the battle in 1066?", TODAY, D(1066, 1, 1), D(1066, 12, 31)),
    ("What happened on 2024-03-05?", TODAY, D(2024, 3, 5), D(2024, 3, 5)),
    ("What happened on March 5, 2024?", TODAY, D(2024, 3, 5), D(2024, 3, 5)),
    # Chinese
    ("今天有什麼新聞？", TODAY, D(2026, 11, 30), D(2026, 11, 30)),
    ("昨天发生了什么？", TODAY, D(2026, 11, 29), D(2026, 11, 29)),
    ("本週的會議", THU, D(2026, 11, 30), D(2026, 12, 3)),
    ("本周的会议", TODAY, D(2026, 11, 30), D(2026, 11, 30)),
    ("上週的會議", TODAY, D(2026, 11, 23), D(2026, 11, 29)),
    ("上周的会议", THU, D(2026, 11, 23), D(2026, 11, 29)),
    ("本月銷售", TODAY, D(2026, 11, 1), D(2026, 11, 30)),
    ("上個月銷售", TODAY, D(2026, 10, 1), D(2026, 10, 31)),
    ("上个月销售", D(2024, 3, 10), D(2024, 2, 1), D(2024, 2, 29)),
    ("今年的論文", TODAY, D(2026, 1, 1), D(2026, 11, 30)),
    ("去年的论文", TODAY, D(2025, 1, 1), D(2025, 12, 31)),
    ("前年的论文", TODAY, D(2024, 1, 1), D(2024, 12, 31)),
    ("去年九月發生了什麼？", TODAY, D(2025, 9, 1), D(2025, 9, 30)),
    ("九月發生了什麼？", TODAY, D(2026, 9, 1), D(2026, 9, 30)),
    ("九月发生了什么？", D(2026, 8, 10), D(2025, 9, 1), D(2025, 9, 30)),
    ("十二月的活动", TODAY, D(2025, 12, 1), D(2025, 12, 31)),
    ("2023年的報告", TODAY, D(2023, 1, 1), D(2023, 12, 31)),
    ("2023年3月的报告", TODAY, D(2023, 3, 1), D(2023, 3, 31)),
    ("2023年第四季度营收", TODAY, D(2023, 10, 1), D(2023, 12, 31)),
    ("最近三個月有哪些新聞？", TODAY, D(2026, 8, 30), D(2026, 11, 30)),
    ("最近3个月有哪些新闻？", TODAY, D(2026, 8, 30), D(2026, 11, 30)),
    ("過去三個月有哪些新聞？", TODAY, D(2026, 8, 30), D(2026, 11, 30)),
    ("最近 7 天的错误", TODAY, D(2026, 11, 23), D(2026, 11, 30)),
    ("最近两周的错误", TODAY, D(2026, 11, 16), D(2026, 11, 30)),
    ("過去一年的變化", TODAY, D(2025, 11, 30), D(2026, 11, 30)),
    ("最近十二個月", TODAY, D(2025, 11, 30), D(2026, 11, 30)),
    ("最近有什么新闻？", TODAY, D(2026, 10, 31), D(2026, 11, 30)),
    ("2020年以来的电影", TODAY, D(2020, 1, 1), D(2026, 11, 30)),
]


@pytest.mark.parametrize("question,today,start,end", TIME_CASES)
def test_time_ranges(question, today, start, end):
    rng = parse_time_range(question, today)
    assert rng is not None, question
    assert (rng.start, rng.end) == (start, end)
    assert rng.expression and rng.expression.lower() in question.lower()


@pytest.mark.parametrize(
    "question,expression",
    [
        ("What happened in the past 3 months?", "in the past 3 months"),
        ("Logs from 2024-01-01 to 2024-02-15 please", "from 2024-01-01 to 2024-02-15"),
        ("What happened in March 2024?", "in March 2024"),
        ("Revenue in Q4 2023", "in Q4 2023"),
        ("最近三個月有哪些新聞？", "最近三個月"),
        ("去年九月發生了什麼？", "去年九月"),
        ("What has Acme recently announced?", "recently"),
    ],
)
def test_expression_is_the_matched_text(question, expression):
    assert parse_time_range(question, TODAY).expression == expression


NO_TIME = [
    "What did March do?",
    "Who wrote Book 2023?",
    "May I ask who built the bridge?",
    "How many were 2023 people",
    "This may be silly, but who built the bridge?",
    "What is the past tense of go?",
    "How did the last emperor die?",
    "Who played in the last match?",
    "Which team scored 2023 points?",
    "What is in 2024-13-45?",
    "Describe the Q4 results.",
    "Thousands, even 1000s of people came.",
    "Who is Jan's brother?",
    "What is the capital of France?",
    "居里夫人发现了什么？",
    "这本书有三个章节",
    "",
]


@pytest.mark.parametrize("question", NO_TIME)
def test_questions_without_time_return_none(question):
    assert parse_time_range(question, TODAY) is None


def test_leftmost_expression_wins():
    rng = parse_time_range("Sales in 2023 compared with last month", TODAY)
    assert rng.expression == "in 2023" and rng.start == D(2023, 1, 1)


def test_reversed_between_is_put_in_order():
    rng = parse_time_range("between 2021 and 2019", TODAY)
    assert (rng.start, rng.end) == (D(2019, 1, 1), D(2021, 12, 31))


def test_to_dict_and_frozen():
    rng = parse_time_range("Films made before 2020", TODAY)
    assert rng.to_dict() == {"from": None, "to": "2019-12-31", "expression": "before 2020"}
    assert DateRange(D(2024, 3, 1), D(2024, 3, 31), "March 2024").to_dict() == {
        "from": "2024-03-01",
        "to": "2024-03-31",
        "expression": "March 2024",
    }
    with pytest.raises(dataclasses.FrozenInstanceError):
        rng.start = D(2020, 1, 1)


# ---------------------------------------------------------------------------- routing

ROUTES = [
    ("How are Marie Curie and Pierre Curie related?", Route("relation", "Marie Curie", "Pierre Curie")),
    ("What connects 'Alan Turing' and the Enigma machine?", Route("relation", "Alan Turing", "Enigma machine")),
    ("What is the relationship between Apple and Foxconn?", Route("relation", "Apple", "Foxconn")),
    ("What is the link between smoking and cancer?", Route("relation", "smoking", "cancer")),
    ("How is Ada Lovelace related to Charles Babbage?", Route("relation", "Ada Lovelace", "Charles Babbage")),
    ("Explain the relationship between the Fed and inflation in 2023.", Route("relation", "Fed", "inflation")),
    ("What do Rome and Paris have in common?", Route("relation", "Rome", "Paris")),
    ("How are “Hamlet” and “Ophelia” connected?", Route("relation", "Hamlet", "Ophelia")),
    ("居里夫人和皮埃尔有什么关系？", Route("relation", "居里夫人", "皮埃尔")),
    ("How is bread made?", Route("search")),
    ("What is related work?", Route("search")),
    ("How are you?", Route("search")),
    ("How are cats and dogs different?", Route("search")),
    ("What links are on the page?", Route("search")),
    ("Who discovered radium?", Route("search")),
    ("", Route("search")),
]


@pytest.mark.parametrize("question,expected", ROUTES)
def test_route(question, expected):
    assert route(question) == expected


RB = Route("relation", "Reynold", "Brannock")
MUTUAL_ROUTES = [
    # what two did to each other, in English phrasings of the family
    ("What did Reynold and Brannock do to each other?", RB),
    ("What have Reynold and Brannock done to one another?", RB),
    ("What happened between Reynold and Brannock?", RB),
    ("What went on between the fox and the giant?", Route("relation", "fox", "giant")),
    ("How did Reynold treat Brannock?", RB),
    ("How did Reynold and Brannock get along?", RB),
    ("What did Reynold do to Brannock?", RB),
    ("Were Reynold and Brannock friends or enemies?", RB),
    ("Did Reynold and Brannock ever fight each other?", RB),
    ("What is Reynold's relationship with Brannock?", RB),
    # in other languages: "A <and> B" written as names, with a word for each other / a relationship
    ("Reynold és Brannock milyen viszonyban vannak, mit csináltak egymással?", RB),
    ("Mit csinált egymással Reynold és Brannock?", RB),
    ("Mi történt Reynold és Brannock között?", RB),
    ("Milyen kapcsolat van Reynold és Brannock között?", RB),
    ("Was haben Reynold und Brannock einander angetan?", RB),
    ("In welcher Beziehung stehen Reynold und Brannock?", RB),
    ("Que se sont fait Reynold et Brannock l'un à l'autre ?", RB),
    ("¿Qué pasó entre Reynold y Brannock?", RB),
    ("O que Reynold e Brannock fizeram um ao outro?", RB),
    ("Co zrobili sobie nawzajem Reynold i Brannock?", RB),
    ("Co si Reynold a Brannock udělali navzájem?", RB),
    ("Reynold和Brannock之間發生了什麼？", RB),
    ("Reynold對Brannock做了什麼？", RB),
    ("ReynoldとBrannockはお互いに何をしましたか？", RB),
    # ordinary questions stay searches
    ("Who made the silver lantern, and who stole it?", Route("search")),
    ("What lies between the Birch Wood and the sea?", Route("search")),
    ("Where does the giant Brannock live?", Route("search")),
    ("What did Reynold promise Ilsa?", Route("search")),
    ("What did Anselm and Ilsa eat?", Route("search")),
    ("How did Reynold get to Mount Greyhorn?", Route("search")),
    ("How do Hansel and Gretel find their way home?", Route("search")),
    ("Ki készítette az ezüst lámpást?", Route("search")),
    ("Mit csinált a róka és az óriás egymással?", Route("search")),  # no names written as names
    ("Was geschah mit Reynold und Brannock?", Route("search")),  # no "between", no "each other"
]


@pytest.mark.parametrize("question,expected", MUTUAL_ROUTES)
def test_route_mutual_actions(question, expected):
    assert route(question) == expected


# ---------------------------------------------------------------------------- keywords

KEYWORDS = [
    ("What did Ada Lovelace write about the Analytical Engine?", ["Ada", "Lovelace", "write", "Analytical", "Engine"]),
    ("Who founded NASA and when?", ["founded", "NASA"]),
    ("Tell me about Newton's laws of motion.", ["Newton", "laws", "motion"]),
    ("How many iPhone models were sold in 2023?", ["iPhone", "models", "sold", "2023"]),
    ("Paris paris PARIS hotels", ["paris", "hotels"]),
    ("Was ist die Hauptstadt von Deutschland?", ["Hauptstadt", "Deutschland"]),
    ("Qu'est-ce que la théorie de la relativité?", ["théorie", "relativité"]),
    ("¿Cuál es la capital de España?", ["capital", "España"]),
    ("居里夫人发现了什么？", ["居里夫人发现"]),
    ("What is a B tree?", ["tree"]),
    ("", []),
]


@pytest.mark.parametrize("question,expected", KEYWORDS)
def test_keywords(question, expected):
    assert keywords(question) == expected


def test_keywords_max_terms():
    assert keywords("alpha beta gamma delta epsilon", max_terms=3) == ["alpha", "beta", "gamma"]
    assert keywords("alpha beta", max_terms=0) == []


# ---------------------------------------------------------------------------- strip

STRIPS = [
    ("What happened in the past 3 months?", "What happened?"),
    ("In 2023, what did Acme announce?", "What did Acme announce?"),
    ("What did Acme announce in 2023, and why?", "What did Acme announce, and why?"),
    ("Show me papers from 2024-01-01 to 2024-02-15 about graphs", "Show me papers about graphs"),
    ("What has Acme recently announced?", "What has Acme announced?"),
    ("Acme news, last month?", "Acme news?"),
    ("最近三個月有哪些新聞？", "有哪些新聞？"),
    ("去年九月發生了什麼？", "發生了什麼？"),
    ("last week?", "last week?"),  # nothing left to search with: unchanged
]


@pytest.mark.parametrize("question,expected", STRIPS)
def test_strip_time_expression(question, expected):
    assert strip_time_expression(question, parse_time_range(question, TODAY)) == expected


def test_strip_without_range_is_identity():
    question = "How is bread made?"
    assert strip_time_expression(question, None) == question
    assert strip_time_expression(question, DateRange(None, None, "in 1999")) == question


# ---------------------------------------------------------------------------- language

LANGUAGES = [
    ("What is the capital of France?", "en"),
    ("How are Marie Curie and Pierre Curie related?", "en"),
    ("Paris", "en"),
    ("", "en"),
    ("法国的首都是哪里？", "zh"),
    ("最近三個月有哪些新聞？", "zh"),
    ("Neo4j 是什么", "zh"),
    ("What does 你好 mean?", "en"),
    ("Was ist die Hauptstadt von Deutschland?", "de"),
    ("Wer hat das Telefon erfunden?", "de"),
    ("Quelle est la capitale de la France ?", "fr"),
    ("Qui a écrit Les Misérables ?", "fr"),
    ("¿Cuál es la capital de España?", "es"),
    ("Dónde está la estación del tren", "es"),
]


@pytest.mark.parametrize("question,expected", LANGUAGES)
def test_detect_language(question, expected):
    assert detect_language(question) == expected


LINGUA_LANGUAGES = [
    ("Reynold és Brannock milyen viszonyban vannak, mit csináltak egymással?", "hu"),  # was "de" (mit)
    ("Ki készítette az ezüst lámpást?", "hu"),
    ("Kto zrobił srebrną latarnię?", "pl"),
    ("Dlaczego koło młyna przestało się obracać?", "pl"),
    ("Kdo vyrobil stříbrnou lucernu?", "cs"),
    ("Proč se mlýnské kolo přestalo točit?", "cs"),
    ("Quem fez a lanterna de prata?", "pt"),
    ("Por que a roda do moinho parou de girar?", "pt"),
    ("谁做了银灯笼？", "zh"),
    ("銀の提灯を作ったのは誰ですか？", "ja"),
    ("ランタンを盗んだのは誰？", "ja"),
    ("은 등불을 누가 만들었나요?", "ko"),
    ("Кто сделал серебряный фонарь?", "ru"),
    # English stays English, plain or not
    ("Who made the silver lantern?", "en"),
    ("Who killed Eddard Stark?", "en"),
    ("Where does the giant Brannock live?", "en"),
    ("What did Reynold and Brannock do to each other?", "en"),
    ("Why did the wheel of Tansy Mill stop turning?", "en"),
    ("Alexandria harbour", "en"),
    ("Brannock?", "en"),
    ("Who founded Ürümqi’s old bazaar?", "en"),
]


@pytest.mark.parametrize("question,expected", LINGUA_LANGUAGES)
def test_detect_language_with_lingua(question, expected):
    pytest.importorskip("lingua", reason="lingua-language-detector is not installed")
    assert detect_language(question) == expected


NAMES = {"hu": "Hungarian", "pl": "Polish", "cs": "Czech", "pt": "Portuguese", "zh": "Chinese", "ja": "Japanese"}


@pytest.mark.parametrize("question,expected", [q for q in LINGUA_LANGUAGES if q[1] in NAMES])
def test_the_answer_instruction_names_the_question_language(question, expected):
    pytest.importorskip("lingua", reason="lingua-language-detector is not installed")
    from graphrag_cypher.retrieval.answer import llm_messages

    system = llm_messages(question, "SOURCES", detect_language(question))[0]["content"]
    assert system.endswith(f"Answer in {NAMES[expected]}, concisely.")


# --- answers: citations checked as they stream, document text as data -----------------------


def _context():
    from graphrag_cypher.retrieval.answer import build_context
    from graphrag_cypher.retrieval.base import Evidence

    evidence = [
        Evidence("story:s:T2::0", "story:s:T2", "The Silver\nLantern [D2]", None, "Maren made it [D2].", 1.0),
        Evidence("doc:a::0", "doc:a", "Notes", None, "Nothing.", 0.5),
    ]
    from graphrag_cypher.retrieval.answer import sources_for

    sources = sources_for(evidence)
    graph = {
        "nodes": [
            {"id": "T2::E4", "name": "Silver Lantern", "type": "MAGICAL_ITEM", "documentId": "story:s:T2"},
            {"id": "folktale:silver lantern", "name": "Silver Lantern", "type": "MAGICAL_ITEM"},
        ],
        "relationships": [{"start": "T2::E4", "type": "INSTANCE_OF", "end": "folktale:silver lantern"}],
        "mentions": [],
    }
    return build_context(sources, graph)


# T2 is the story's own id: not a citation id (every source is cited D1, D2, … by its place)
ANSWER = "Maren made it [D1]. Not [X9]. The lantern [D1::E4] [D1::E9] [T2]; both [D1, D2]  and [D2 , 'D1'] . End [open"


def test_citations_are_checked_whole_and_shown_as_titles():
    from graphrag_cypher.retrieval.answer import check_citations

    checked = check_citations(ANSWER, _context())
    assert checked.text == "Maren made it [D1]. Not. The lantern [D1::E4]; both [D1, D2] and [D2, D1]. End [open"
    assert checked.titled == (
        "Maren made it [The Silver Lantern (D2)]. Not. The lantern [The Silver Lantern (D2)]; "
        "both [The Silver Lantern (D2); Notes] and [Notes; The Silver Lantern (D2)]. End [open"
    )
    assert checked.dropped == ["X9", "D1::E9", "T2"] and checked.cited == ["D1", "D2"]


@pytest.mark.parametrize("size", [1, 2, 3, 5, 7, 11])
def test_streaming_in_any_pieces_shows_only_checked_text(size):
    from graphrag_cypher.retrieval.answer import CitationFilter, check_citations

    context = _context()
    shown: list[str] = []
    stream = CitationFilter(context.cites, emit=shown.append)
    for start in range(0, len(ANSWER), size):
        stream.feed(ANSWER[start : start + size])
        assert "X9" not in "".join(shown) and "E9" not in "".join(shown)
    checked = stream.close()
    assert checked == check_citations(ANSWER, context)
    assert "".join(shown) == checked.titled


def test_context_lines_cannot_be_forged_by_titles_or_text():
    context = _context()
    lines = context.text.splitlines()
    # the first source's title and text name [D2], the second source: they stay text, not a citation
    assert lines[:2] == ["SOURCES", "[D1] The Silver Lantern (D2)"] and "  Maren made it (D2)." in lines
    assert [line for line in lines if line.startswith("[")] == ["[D1] The Silver Lantern (D2)", "[D2] Notes"]
    # a node from a source is citable by its scoped id; one from no source keeps its own id and is not
    assert "D1::E4" in context.cites and "folktale:silver lantern" not in context.cites
    assert "  D1::E4 -[INSTANCE_OF]-> folktale:silver lantern" in lines


def test_control_characters_never_pass():
    from graphrag_cypher.retrieval.answer import check_citations

    checked = check_citations("a\x1b[31mred\x1b]8;;http://x/\x07link [D1]\x9b", _context())
    assert not any(ch in checked.titled for ch in "\x1b\x07\x9b")


@pytest.mark.parametrize(
    "text, query",
    [
        ("OR", "or"),
        ("NOT AND", "not and"),
        ("a && b || c", "a \\&\\& b \\|\\| c"),
        ("(x:y)", "\\(x\\:y\\)"),
        ("TOM AND JERRY", "TOM and JERRY"),
        ("c++ *", "c\\+\\+ \\*"),
    ],
)
def test_lucene_queries_hold_no_operators(text, query):
    from graphrag_cypher.retrieval.base import escape_lucene, lucene_query

    assert escape_lucene(text) == query
    assert lucene_query(["", "?", "  "]) == ""


def test_follow_ups_carry_each_name_once():
    from graphrag_cypher.retrieval.chat import carry_over

    previous = {"entities": ["the silver lantern", "Silver Lantern", "the silver lantern", "Old Maren"], "time": None}
    assert carry_over("And who stole it?", previous) == "And who stole it (the silver lantern, Old Maren)?"
    assert (
        carry_over("And who stole the lantern from old maren?", previous)
        == "And who stole the lantern from old maren (the silver lantern)?"
    )
