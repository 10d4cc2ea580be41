"""Structured questions: relation lookups, counts and "which documents mention X", scored per family.

    python bench/structured.py [--llm] [--json] [--questions FILE] [--replies FILE] [--embed-articles]

Loads, into a throw-away Neo4j and the way a user does (`graphrag load …` and `graphrag link
places` run as subprocesses against it):

* `load records got/characters.json --mapping got-characters` (the Game of Thrones characters),
* `load stories tales/grimm-pg2591.txt` (Grimm's tales, one :Story document each),
* `load files isaw-papers --ext .xhtml --corpus isaw --no-embed` (the 77 ISAW articles, 3,617
  chunks, without vectors: embedding them took 8 minutes on a shared 2-core machine, against
  about 8 s for the load without, and no structured question needs them; their full-text index
  and place links are there. --embed-articles embeds them, for the search route's sake),
* `load pleiades pleiades/pleiades-places.geojsonl.gz`, then `link places` (Chunk-[:MENTIONS]->Place),
* the Chinese corpus of bench/data/structured-zh: `load files news --corpus zh-news` and
  `load records companies.json` / `people.json` with their mappings and schema.yaml,

then asks every question of bench/questions/structured.yaml in-process (`qa.ask`, no LLM unless
--llm, corpus not given: the question itself names its scope) and scores each family. `--questions
FILE` asks another set: its `questions:`, or its `structured:` section in a file that holds both
benches' questions (bench/questions/heldout-graphwide.yaml, other phrasings and subjects).

* lookup, membership, actor, zh_lookup: F1 of the gold names found in the answer text (a gold name
  counts when it occurs in `answer.text`, case-insensitively, on word boundaries; in Chinese a
  plain substring). Precision's denominator, the names the answer gives: the `name`/`title` of the
  answer's `rows` when it has them, else the known names (characters, actors, "House X" of
  characters.json; people, companies and cities of the Chinese records) written in the text,
  longest first; a name the question itself names is left out unless it is gold.
* count, count_docs, zh_count: right when the first number of the answer text (citations such as
  [S1] removed; digits, English number words or Chinese numerals) equals the gold count.
* docs_tales, docs_articles, zh_docs: F1 of the documents cited, each counted once, against the
  gold documents: the documents of `answer.citations`, plus those of `rows` when present (a row's
  `document_id` or `id`, else every document of the scope with the row's `title`). Documents,
  not bare titles, because two ISAW articles are both titled "Introduction"; the JSON shows titles.

Gold is computed here, at run time, from the source data, never typed in:

* characters.json: `killedBy`/`killed`, `parents`/`parentOf`, `serves`/`servedBy` are each one
  relation seen from its two ends (the mapping loads both as one edge type), so "who killed X" is
  X's killedBy plus everyone whose `killed` names X. `siblings` and `marriedEngaged` are
  symmetric (X's list plus everyone who lists X). Members of House X: the characters whose
  houseName is or includes X. Actors: `actorName` and `actors[].actorName`; "which character did
  A play": every character with A among its actors.
* companies.json / people.json: 创办人 (founders), 总部 (headquarters), 公司 (employer), 城市 (city).
* "mentions X" (`mention_pattern`, the one place the rule is written): a document of the scope mentions X when the text of one of its
  chunks (read back from the bench Neo4j, Document<-[:FROM_DOCUMENT]-Chunk) matches any inflection
  of X on word boundaries, case-insensitively: singular, plural (giant/giants, thief/thieves,
  mouse/mice), possessive (giant's, giants'), British/American spelling (harbour/harbor,
  civilisation/civilization), the last word's and a possessive's before it ("kings' sons" counts
  "king's son" too), by the lexicon's English number (graphrag_cypher.lexicon.forms): "How many
  tales mention a giant?" and "… giants?" have one answer. A name (capitalised: Alexandria, Athens)
  counts as written (its possessive too); Chinese terms: a plain substring. Scopes: tales, the :Story documents; articles, the documents of
  corpus isaw; zh, the documents of corpus zh-news.

--llm asks the same questions with a scripted OpenAI-compatible server on 127.0.0.1
(tests/llm_server.py) as the LLM: it answers each request with the recorded reply of the question
the request carries (bench/questions/structured-llm-replies.json: question -> reply, a Cypher
statement in a ```cypher block; the longest recorded question found in the request's messages
wins), else with NO_REPLY. Every question has one, so whichever question a route hands to the
LLM gets a statement that answers it; today's search route takes the reply as the answer text.
Before the questions, each recorded Cypher statement is run read-only on the bench graph and
compared with the gold, so a wrong recording shows as such.

Not part of `make bench`: the loads take over a minute on a quiet 2-core machine (embedding the
Grimm tales most of it) and several under load; the questions about a minute more.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import REPO, bench_neo4j, data_dir, graphrag_env  # noqa: E402

HERE = Path(__file__).resolve().parent
QUESTIONS = HERE / "questions" / "structured.yaml"
REPLIES = HERE / "questions" / "structured-llm-replies.json"
ZH = HERE / "data" / "structured-zh"
ZH_CORPUS = "zh-news"
ISAW_CORPUS = "isaw"
NO_REPLY = "I cannot answer that from the graph."
LLM_MODEL = "recorded-replies"


# --- loading, as a user does ----------------------------------------------------------------


def load_steps(data: Path, embed_articles: bool = False) -> list[tuple[str, list[str]]]:
    """(name, `graphrag` arguments) of every load, in order: the linking after every chunk is there."""
    zh = ZH
    isaw = ["load", "files", str(data / "isaw-papers"), "--ext", ".xhtml", "--corpus", ISAW_CORPUS]
    return [
        ("got records", ["load", "records", str(data / "got" / "characters.json"), "--mapping", "got-characters"]),
        ("grimm tales", ["load", "stories", str(data / "tales" / "grimm-pg2591.txt")]),
        ("isaw articles", isaw) if embed_articles else ("isaw articles (no vectors)", [*isaw, "--no-embed"]),
        ("zh news", ["load", "files", str(zh / "news"), "--corpus", ZH_CORPUS]),
        (
            "zh companies",
            ["load", "records", str(zh / "companies.json"), "--mapping", str(zh / "companies.yaml")]
            + ["--schema", str(zh / "schema.yaml")],
        ),
        (
            "zh people",
            ["load", "records", str(zh / "people.json"), "--mapping", str(zh / "people.yaml")]
            + ["--schema", str(zh / "schema.yaml")],
        ),
        ("pleiades places", ["load", "pleiades", str(data / "pleiades" / "pleiades-places.geojsonl.gz")]),
        ("link places", ["link", "places"]),
    ]


def load_all(settings, data: Path, echo=lambda line: None, embed_articles: bool = False) -> dict:
    """Every load step as a `graphrag` subprocess; {step: {"seconds", "result"}} (the --json output)."""
    exe = Path(sys.executable).parent / "graphrag"
    env = graphrag_env(settings)
    out = {}
    for name, args in load_steps(data, embed_articles):
        started = time.perf_counter()
        run = subprocess.run([str(exe), *args, "--json"], env=env, cwd=REPO, capture_output=True, text=True)
        seconds = round(time.perf_counter() - started, 1)
        if run.returncode != 0:
            raise RuntimeError(f"graphrag {' '.join(args[:2])} ({name}) failed: {run.stderr.strip()[-500:]}")
        try:
            result = json.loads(run.stdout)
        except json.JSONDecodeError:
            result = run.stdout.strip()[-300:]
        out[name] = {"seconds": seconds, "result": result}
        echo(f"{name}: {seconds} s")
    return out


# --- gold ------------------------------------------------------------------------------------

# One relation seen from its two ends: X's `killedBy` and everyone whose `killed` names X, ...
INVERSE_FIELD = {
    "killedBy": "killed",
    "killed": "killedBy",
    "parents": "parentOf",
    "parentOf": "parents",
    "serves": "servedBy",
    "servedBy": "serves",
    "siblings": "siblings",
    "marriedEngaged": "marriedEngaged",
}
ZH_FIELDS = {"创办人": "companies", "总部": "companies", "公司": "people", "城市": "people"}  # field -> its records
SCOPES = ("tales", "articles", "zh")
FAMILY_SCOPE = {"docs_tales": "tales", "docs_articles": "articles", "zh_docs": "zh"}
NAME_FAMILIES = {"lookup", "membership", "actor", "zh_lookup"}
COUNT_FAMILIES = {"count", "count_docs", "zh_count"}
DOC_FAMILIES = {"docs_tales", "docs_articles", "zh_docs"}
FAMILIES = (
    "lookup",
    "membership",
    "actor",
    "count",
    "docs_tales",
    "docs_articles",
    "count_docs",
    "zh_lookup",
    "zh_count",
    "zh_docs",
)


def _listed(value) -> list[str]:
    if value is None or value == "":
        return []
    return [v for v in (value if isinstance(value, list) else [value]) if isinstance(v, str) and v.strip()]


def has_cjk(text: str) -> bool:
    return re.search(r"[\u3400-\u9fff\uf900-\ufaff]", text) is not None


def mention_pattern(term: str) -> re.Pattern:
    """The mention rule: any inflection of the term (`graphrag_cypher.lexicon.forms`: singular,
    plural, possessive, British/American spelling, of its last word and of a possessive before it),
    case-insensitive, on word boundaries, either apostrophe, any run of spaces between words; a name
    (its last word capitalised, or not of English letters) as written; a Chinese term (any CJK
    character in it): a plain substring."""
    from graphrag_cypher import lexicon

    if has_cjk(term):
        return re.compile(re.escape(term))
    last = term.split()[-1] if term.split() else term
    bare = re.sub(r"['’]s?$", "", last)
    named = not (bare.isascii() and bare.isalpha()) or bare[:1].isupper()
    forms = {term} if named else lexicon.forms(term)

    def body(form: str) -> str:
        return r"\s+".join("['’]".join(map(re.escape, re.split("['’]", w))) for w in form.split())

    alternatives = "|".join(body(f) for f in sorted(forms, key=len, reverse=True))
    return re.compile(rf"(?<!\w)(?:{alternatives})(?!\w)", re.IGNORECASE)


def name_pattern(name: str) -> re.Pattern:
    """A name on word boundaries, case-insensitive (a Chinese name: a plain substring)."""
    if has_cjk(name):
        return re.compile(re.escape(name))
    return re.compile(rf"(?<!\w){re.escape(name)}(?!\w)", re.IGNORECASE)


class Gold:
    """The answers the source data gives: characters.json, the Chinese records, the stored chunk texts."""

    def __init__(self, characters: list[dict], companies: list[dict], people: list[dict], documents: list[dict]):
        self.characters = {c["characterName"]: c for c in characters if c.get("characterName")}
        for record in self.characters.values():  # `sibling` (one record) is the same relation as `siblings`
            if record.get("sibling"):
                record["siblings"] = _listed(record.get("siblings")) + _listed(record["sibling"])
        self.zh = {"companies": {r["名称"]: r for r in companies}, "people": {r["姓名"]: r for r in people}}
        self.documents = documents  # {"id", "title", "scope", "text"}
        self.got_names = self._got_names()
        self.zh_names = sorted(
            {n for r in companies for n in [r["名称"], *_listed(r.get("创办人")), *_listed(r.get("总部"))]}
            | {n for r in people for n in [r["姓名"], *_listed(r.get("公司")), *_listed(r.get("城市"))]}
        )

    def _got_names(self) -> list[str]:
        names = set(self.characters)
        for record in self.characters.values():
            for field in INVERSE_FIELD:
                names.update(_listed(record.get(field)))
            names.update(self.actors_of(record["characterName"]))
            names.update(f"House {h}" for h in _listed(record.get("houseName")))
        return sorted(names)

    # characters.json
    def character(self, name: str) -> dict:
        if name not in self.characters:
            raise KeyError(f"no character {name!r} in characters.json")
        return self.characters[name]

    def actors_of(self, name: str) -> list[str]:
        record = self.character(name)
        actors = _listed(record.get("actorName"))
        actors += [a["actorName"] for a in record.get("actors") or [] if isinstance(a, dict) and a.get("actorName")]
        return list(dict.fromkeys(actors))

    def relation(self, field: str, name: str) -> set[str]:
        if field in ("actorName", "actors"):
            return set(self.actors_of(name))
        if field not in INVERSE_FIELD:
            raise KeyError(f"unknown characters.json field {field!r}")
        own = set(_listed(self.character(name).get(field)))
        inverse = INVERSE_FIELD[field]
        own |= {n for n, r in self.characters.items() if name in _listed(r.get(inverse))}
        return own - {name}  # the mapping makes no edge from a record to itself

    def played_by(self, actor: str) -> set[str]:
        found = {n for n in self.characters if actor in self.actors_of(n)}
        if not found:
            raise KeyError(f"no character played by {actor!r} in characters.json")
        return found

    def members(self, house: str) -> set[str]:
        found = {n for n, r in self.characters.items() if house in _listed(r.get("houseName"))}
        if not found:
            raise KeyError(f"no member of House {house!r} in characters.json")
        return found

    # the Chinese records
    def zh_relation(self, field: str, spec: dict) -> set[str]:
        kind = ZH_FIELDS[field]
        records = self.zh[kind]
        subject = spec.get("company") if kind == "companies" else spec.get("person")
        if subject is not None:  # forward: the field's values of one record
            if subject not in records:
                raise KeyError(f"no record {subject!r} in {kind}.json")
            return set(_listed(records[subject].get(field)))
        value = next((spec[k] for k in ("person", "company", "city") if k in spec), None)
        found = {n for n, r in records.items() if value in _listed(r.get(field))}  # inverse: the records naming it
        if not found:
            raise KeyError(f"no record of {kind}.json has {field} = {value!r}")
        return found

    # the documents (by id: two ISAW articles are both titled "Introduction")
    def mentioning(self, term: str, scope: str) -> set[str]:
        pattern = mention_pattern(term)
        return {d["id"] for d in self.documents if d["scope"] == scope and pattern.search(d["text"])}

    def title(self, document_id: str) -> str:
        return next((d["title"] for d in self.documents if d["id"] == document_id), document_id)

    def ids_titled(self, title: str, scope: str | None) -> set[str]:
        key = _key(title)
        return {d["id"] for d in self.documents if _key(d["title"] or "") == key and scope in (None, d["scope"])}

    def answer(self, family: str, spec: dict) -> set[str]:
        """The gold names, or document ids, of a question (a count question: the set it counts)."""
        if "term" in spec:
            scope = spec.get("scope") or FAMILY_SCOPE.get(family)
            if scope not in SCOPES:
                raise KeyError(f"a term question needs a scope ({', '.join(SCOPES)})")
            return self.mentioning(spec["term"], scope)
        if "house" in spec:
            return self.members(spec["house"])
        field = spec.get("field")
        if field in ZH_FIELDS:
            return self.zh_relation(field, spec)
        if "actor" in spec:
            return self.played_by(spec["actor"])
        return self.relation(field, spec["character"])


def read_documents(graph) -> list[dict]:
    """Every document of the three scopes with the text of its chunks, read back from Neo4j."""
    rows = graph.read("structured/document_texts")
    out = []
    for row in rows:
        scope = "tales" if row["story"] else {ISAW_CORPUS: "articles", ZH_CORPUS: "zh"}.get(row["corpus"])
        if scope:
            out.append({"id": row["id"], "title": row["title"], "scope": scope, "text": "\n".join(row["texts"])})
    return out


def read_gold(graph, data: Path) -> Gold:
    characters = json.loads((data / "got" / "characters.json").read_text(encoding="utf-8"))["characters"]
    companies = json.loads((ZH / "companies.json").read_text(encoding="utf-8"))
    people = json.loads((ZH / "people.json").read_text(encoding="utf-8"))
    return Gold(characters, companies, people, read_documents(graph))


# --- scoring ---------------------------------------------------------------------------------

CITATION = re.compile(r"\[[\w.:-]+(?:\s*,\s*[\w.:-]+)*\]")  # [S1], [T2, T3], [the-12-huntsmen]
NUMBER_WORDS = {
    w: i
    for i, w in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
        "sixteen seventeen eighteen nineteen twenty".split()
    )
}
NUMBER_WORDS.update({"none": 0, "no": 0, "thirty": 30, "forty": 40, "fifty": 50})
CN_DIGITS = {"零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}
CN_UNITS = {"十": 10, "百": 100, "千": 1000}
FIRST_NUMBER = re.compile(
    r"(?P<digits>\d+(?:,\d{3})*)"
    rf"|(?P<cn>[{''.join(CN_DIGITS)}{''.join(CN_UNITS)}]+)"
    rf"|(?<![\w-])(?P<word>{'|'.join(sorted(NUMBER_WORDS, key=len, reverse=True))})(?![\w-])",
    re.IGNORECASE,
)


def chinese_number(text: str) -> int | None:
    """三 → 3, 十一 → 11, 二十五 → 25, 两百 → 200, 一〇三 → 103."""
    if all(ch in CN_DIGITS for ch in text):
        return int("".join(str(CN_DIGITS[ch]) for ch in text))
    total, digit = 0, None
    for ch in text:
        if ch in CN_DIGITS:
            digit = CN_DIGITS[ch]
        else:
            total += (1 if digit is None else digit) * CN_UNITS[ch]
            digit = None
    return total + (digit or 0)


def first_number(text: str) -> int | None:
    """The first number of an answer, its citation ids ([S1], [T2, T3]) left out."""
    match = FIRST_NUMBER.search(CITATION.sub(" ", text))
    if match is None:
        return None
    if match["digits"]:
        return int(match["digits"].replace(",", ""))
    if match["cn"]:
        return chinese_number(match["cn"])
    word = match["word"].lower()
    if word == "no" and not re.match(r"no\s+(?:one|\w+s)\b", text[match.start() :], re.IGNORECASE):
        return first_number(text[match.end() :])  # "no" counts as 0 only as in "no tales", "no one"
    return NUMBER_WORDS[word]


def names_in(text: str, names: list[str]) -> list[str]:
    """The known names written in `text`, longest first at each place, each once (case-sensitive)."""
    if not names:
        return []
    ordered = sorted(names, key=len, reverse=True)
    pattern = re.compile("|".join(rf"(?<!\w){re.escape(n)}(?!\w)" if not has_cjk(n) else re.escape(n) for n in ordered))
    return list(dict.fromkeys(m.group(0) for m in pattern.finditer(text)))


def f1(found: int, given: int, gold: int) -> tuple[float, float, float]:
    precision = found / given if given else 0.0
    recall = found / gold if gold else 0.0
    return precision, recall, (2 * precision * recall / (precision + recall) if precision + recall else 0.0)


def _key(text: str) -> str:
    return " ".join(str(text).casefold().split())


def score_names(question: str, answer_text: str, rows: list[dict] | None, gold: set[str], known: list[str]) -> dict:
    found = {g for g in gold if name_pattern(g).search(answer_text)}
    in_question = {_key(n) for n in names_in(question, known)}
    if rows is not None:
        written = [str(r.get("name") or r.get("title")) for r in rows if r.get("name") or r.get("title")]
    else:
        written = names_in(answer_text, known)
    gold_keys = {_key(g) for g in gold}
    given = {_key(n) for n in written if _key(n) not in in_question or _key(n) in gold_keys} | {_key(g) for g in found}
    precision, recall, score = f1(len(found), len(given), len(gold))
    return {
        "score": score,
        "precision": precision,
        "recall": recall,
        "found": sorted(found),
        "given": sorted(given),
        "names_from": "rows" if rows is not None else "text",
    }


def score_count(answer_text: str, gold: set[str]) -> dict:
    number = first_number(answer_text)
    return {"score": float(number == len(gold)), "number": number, "gold_count": len(gold)}


def score_documents(citations: list, rows: list[dict] | None, gold: set[str], data: Gold, scope: str) -> dict:
    """F1 of the documents cited (each once) against the gold documents; a row's title stands for
    every document of the scope with that title, unless the row names its document's id."""
    cited = {s.document_id for s in citations if getattr(s, "document_id", None)}
    for row in rows or []:
        if row.get("document_id") or row.get("id"):
            cited.add(str(row.get("document_id") or row.get("id")))
        elif row.get("title"):
            cited |= data.ids_titled(str(row["title"]), scope) or {f"title:{row['title']}"}
    found = cited & gold
    precision, recall, score = f1(len(found), len(cited), len(gold))
    return {
        "score": score,
        "precision": precision,
        "recall": recall,
        "cited": sorted(data.title(d) for d in cited),
        "missed": sorted(data.title(d) for d in gold - cited),
    }


def score(family: str, question: dict, answer, gold: set[str], data: Gold) -> dict:
    """One answer's score (`score`, 0 to 1) with what it was computed from."""
    out = answer.to_dict()
    rows = out.get("rows") if isinstance(out.get("rows"), list) else None
    rows = [r for r in rows if isinstance(r, dict)] if rows is not None else None
    if family in NAME_FAMILIES:
        known = data.zh_names if family.startswith("zh_") else data.got_names
        return score_names(question["q"], answer.text, rows, gold, known)
    if family in COUNT_FAMILIES:
        return score_count(answer.text, gold)
    return score_documents(answer.citations, rows, gold, data, FAMILY_SCOPE[family])


# --- the run ---------------------------------------------------------------------------------


def read_questions(path: Path) -> list[dict]:
    import yaml

    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    # a file of both benches' questions keeps this bench's under `structured:`
    questions = (data.get("structured") or data.get("questions") or []) if isinstance(data, dict) else data
    for q in questions:
        if q.get("family") not in FAMILIES or not isinstance(q.get("gold"), dict) or not q.get("q"):
            raise ValueError(f"{path.name}: every question needs q, a family of {', '.join(FAMILIES)} and gold: {q}")
    return questions


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def summarise(results: list[dict]) -> dict:
    families = {}
    for family in FAMILIES:
        mine = [r for r in results if r["family"] == family]
        if not mine:
            continue
        row = {
            "n": len(mine),
            "metric": "share right" if family in COUNT_FAMILIES else "F1",
            "score": round(statistics.mean(r["score"] for r in mine), 3),
            "p50_ms": round(statistics.median(r["ms"] for r in mine), 1),
            "p95_ms": round(percentile([r["ms"] for r in mine], 0.95), 1),
            "structured_route": sum(r["route"] == "structured" for r in mine),
        }
        if family not in COUNT_FAMILIES:
            row["precision"] = round(statistics.mean(r["precision"] for r in mine), 3)
            row["recall"] = round(statistics.mean(r["recall"] for r in mine), 3)
        families[family] = row
    return families


def ask_all(graph, embedder, settings, questions: list[dict], data: Gold, use_llm: bool, echo) -> list[dict]:
    from graphrag_cypher.retrieval.qa import ask

    results = []
    for q in questions:
        gold = data.answer(q["family"], q["gold"])
        started = time.perf_counter()
        try:
            answer = ask(graph, embedder, settings, q["q"], use_llm=use_llm, corpus=None)
        except Exception as exc:  # a failing question scores 0 and says why; the others go on
            ms = (time.perf_counter() - started) * 1000
            results.append(
                {
                    "q": q["q"],
                    "family": q["family"],
                    "score": 0.0,
                    "precision": 0.0,
                    "recall": 0.0,
                    "ms": ms,
                    "route": None,
                    "error": f"{type(exc).__name__}: {exc}"[:300],
                }
            )
            echo(f"  error  {q['q']}: {results[-1]['error']}")
            continue
        ms = (time.perf_counter() - started) * 1000
        scored = score(q["family"], q, answer, gold, data)
        out = answer.to_dict()
        results.append(
            {
                "q": q["q"],
                "family": q["family"],
                **scored,
                "gold": sorted(data.title(g) for g in gold) if "term" in q["gold"] else sorted(gold),
                "ms": round(ms, 1),
                "route": out.get("route"),
                "answer": answer.text[:400],
            }
        )
        echo(f"  {scored['score']:.2f}  {out.get('route')}  {q['q']}")
    return results


# --- the recorded LLM ------------------------------------------------------------------------

CYPHER_BLOCK = re.compile(r"```cypher\s*\n(.*?)```", re.DOTALL | re.IGNORECASE)


class RecordedLLM:
    """tests/llm_server.py's scripted server, answering each request with the recorded reply of
    the question it carries (the longest recorded question found in its messages), else NO_REPLY."""

    def __init__(self, replies: dict[str, str]):
        sys.path.insert(0, str(REPO))
        from tests.llm_server import LLMServer

        self.replies = replies
        self.by_length = sorted(replies, key=len, reverse=True)
        self.matched = 0
        self.unmatched = 0
        self.server = LLMServer(self.reply)
        self.url = self.server.url

    def reply(self, body: dict) -> str:
        text = "\n".join(str(m.get("content") or "") for m in body.get("messages") or [] if isinstance(m, dict))
        question = next((q for q in self.by_length if q in text), None)
        if question is None:
            self.unmatched += 1
            return NO_REPLY
        self.matched += 1
        return self.replies[question]

    def close(self) -> None:
        self.server.close()


def llm_settings(settings, url: str):
    """The bench Neo4j's settings with the LLM set as a user sets it: OPENAI_BASE_URL, GRAPHRAG_LLM_MODEL."""
    from graphrag_cypher.config import load_settings

    return load_settings(
        {
            "NEO4J_URI": settings.neo4j_uri,
            "NEO4J_USERNAME": settings.neo4j_username,
            "NEO4J_PASSWORD": settings.neo4j_password or "",
            "GRAPHRAG_EMBEDDER": settings.embedder,
            "GRAPHRAG_EMBEDDING_DIMENSIONS": str(settings.embedding_dimensions),
            "OPENAI_BASE_URL": url,
            "GRAPHRAG_LLM_MODEL": LLM_MODEL,
        }
    )


def check_replies(graph, questions: list[dict], replies: dict[str, str], data: Gold) -> dict:
    """Each recorded Cypher statement run on the bench graph, its rows against the question's gold:
    a count question's single number, else the `name` (or document `id`, or `title`) column."""
    checked, agree, wrong = 0, 0, []
    for q in questions:
        block = CYPHER_BLOCK.search(replies.get(q["q"], ""))
        if not block:
            continue
        checked += 1
        gold = data.answer(q["family"], q["gold"])
        try:
            rows = graph.read_text(block.group(1))
        except Exception as exc:  # a recording that does not run is wrong, not fatal
            wrong.append({"q": q["q"], "error": str(exc).splitlines()[0][:200]})
            continue
        if q["family"] in COUNT_FAMILIES:
            values = [v for r in rows for v in r.values() if isinstance(v, int)]
            ok = values == [len(gold)]
        elif q["family"] in DOC_FAMILIES:
            got = {str(r["id"]) for r in rows if r.get("id")} or {
                i for r in rows if r.get("title") for i in data.ids_titled(str(r["title"]), FAMILY_SCOPE[q["family"]])
            }
            ok = got == gold
        else:
            ok = {_key(r.get("name") or "") for r in rows} == {_key(g) for g in gold}
        if ok:
            agree += 1
        else:
            wrong.append({"q": q["q"], "rows": rows[:10]})
    return {"recorded_cypher": checked, "agree_with_gold": agree, "wrong": wrong}


# --- main ------------------------------------------------------------------------------------


def main(
    questions_file: Path = QUESTIONS,
    use_llm: bool = False,
    replies_file: Path = REPLIES,
    embed_articles: bool = False,
    echo=None,
) -> dict:
    from graphrag_cypher.onnx_embedder import make_query_embedder

    echo = echo or (lambda line: None)
    data = data_dir()
    needed = [
        data / "got" / "characters.json",
        data / "tales" / "grimm-pg2591.txt",
        data / "isaw-papers",
        data / "pleiades" / "pleiades-places.geojsonl.gz",
    ]
    if not all(p.exists() for p in needed):
        return {"skipped": f"real data not found at {data} (set GRAPHRAG_DATA_DIR)"}
    questions = read_questions(questions_file)
    started = time.perf_counter()
    out: dict = {"questions": len(questions), "llm": use_llm, "article_vectors": embed_articles}
    with bench_neo4j() as (settings, graph):
        loads = load_all(settings, data, echo, embed_articles)
        out["load_s"] = round(time.perf_counter() - started, 1)
        out["loads"] = {name: step["seconds"] for name, step in loads.items()}
        gold = read_gold(graph, data)
        for q in questions:  # every question's gold, before any is asked: a typo fails here
            if not gold.answer(q["family"], q["gold"]):
                raise ValueError(f"empty gold for {q['q']!r}: {q['gold']}")
        embedder = make_query_embedder(settings)
        out["query_embedder"] = getattr(embedder, "backend", type(embedder).__name__)
        asked = time.perf_counter()
        if use_llm:
            replies = json.loads(replies_file.read_text(encoding="utf-8"))
            out["replies"] = check_replies(graph, questions, replies, gold)
            recorded = RecordedLLM(replies)
            # the relevance judge's verdicts are cached on disk: a fresh cache, so every run asks
            cache, os.environ["GRAPHRAG_CACHE_DIR"] = os.environ.get("GRAPHRAG_CACHE_DIR"), tempfile.mkdtemp()
            try:
                results = ask_all(graph, embedder, llm_settings(settings, recorded.url), questions, gold, True, echo)
            finally:
                recorded.close()
                shutil.rmtree(os.environ["GRAPHRAG_CACHE_DIR"], ignore_errors=True)
                if cache is None:
                    os.environ.pop("GRAPHRAG_CACHE_DIR")
                else:
                    os.environ["GRAPHRAG_CACHE_DIR"] = cache
            out["llm_requests"] = {"matched": recorded.matched, "unmatched": recorded.unmatched}
        else:
            results = ask_all(graph, embedder, settings, questions, gold, False, echo)
        out["ask_s"] = round(time.perf_counter() - asked, 1)
    out["families"] = summarise(results)
    out["total_s"] = round(time.perf_counter() - started, 1)
    out["results"] = results
    return out


def rows(result: dict) -> list[tuple[str, str, str]]:
    """`make bench` style rows (name, value, detail), one per family."""
    if "skipped" in result:
        return [("structured questions", "skipped", result["skipped"])]
    return [
        (
            f"structured {family}",
            f"{r['metric']} {r['score']:.2f}",
            f"{r['n']} questions, p50 {r['p50_ms']} ms, {r['structured_route']} by the structured route"
            + (f", P {r['precision']:.2f} R {r['recall']:.2f}" if "precision" in r else ""),
        )
        for family, r in result["families"].items()
    ]


def print_table(result: dict) -> None:
    if "skipped" in result:
        print(result["skipped"])
        return
    print(
        f"{result['questions']} questions, LLM: {'recorded replies' if result['llm'] else 'none'}, "
        f"query embedder {result['query_embedder']}; loads {result['load_s']} s, questions {result['ask_s']} s"
    )
    print(f"{'family':<14} {'n':>3}  {'metric':<11} {'score':>5}  {'P':>5} {'R':>5}  {'p50 ms':>8}  structured")
    for family, r in result["families"].items():
        p = f"{r['precision']:.2f}" if "precision" in r else "-"
        rr = f"{r['recall']:.2f}" if "recall" in r else "-"
        print(
            f"{family:<14} {r['n']:>3}  {r['metric']:<11} {r['score']:>5.2f}  {p:>5} {rr:>5}  "
            f"{r['p50_ms']:>8}  {r['structured_route']:>3}/{r['n']}"
        )
    if "replies" in result:
        rep = result["replies"]
        print(
            f"recorded Cypher replies agreeing with the gold: {rep['agree_with_gold']}/{rep['recorded_cypher']}; "
            f"LLM requests {result['llm_requests']['matched']} with a recorded question, "
            f"{result['llm_requests']['unmatched']} without"
        )


if __name__ == "__main__":
    args = sys.argv[1:]
    questions_path = Path(args[args.index("--questions") + 1]) if "--questions" in args else QUESTIONS
    replies_path = Path(args[args.index("--replies") + 1]) if "--replies" in args else REPLIES
    as_json = "--json" in args
    result = main(
        questions_path,
        use_llm="--llm" in args,
        replies_file=replies_path,
        embed_articles="--embed-articles" in args,
        echo=None if as_json else (lambda line: print(line, file=sys.stderr, flush=True)),
    )
    if as_json:
        print(json.dumps(result, indent=2, ensure_ascii=False))
    else:
        print_table(result)
