"""How a question is answered: one options object that every face builds once, declared once.

``graphrag ask`` and ``graphrag chat`` build it from their flags, ``POST /chat`` from its
body, the OpenAI-compatible endpoint from the model name and its extra fields, the MCP tools
from their arguments; :func:`graphrag_cypher.retrieval.qa.ask` reads it (as neo4j-graphrag's
retriever config or LightRAG's ``QueryParam``). What is not a setting travels beside it: the
reranker and the web search (services), the conversation so far and the token callback.

Each field carries its :class:`Option` (``dataclasses.field(metadata=...)``): its name in a
request body, its flags, its choices or bounds, its help and environment variable. The faces
are generated from it — the click options (``cli/params.py``), the pydantic body of ``/chat``
and the ``/v1`` extra fields (``server/ask_params.py``), the MCP tools' parameters — so a bound
or a help text is written once, and :meth:`AskOptions.__post_init__` checks the same bounds
whichever face made the options.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from dataclasses import dataclass, field
from datetime import date

from ..budget import MAX_KEY_CHARS
from ..chinese import CHOICES as CONVERSIONS
from ..errors import GraphragError
from .modes import ANSWER_MODES, DEFAULT_MODE

GATES = ("auto", "always", "off")  # the score gate and relevance judge (gate.py)
WEB_MODES = ("auto", "always", "off")  # the web fallback: when the graph has nothing, alongside, never
# one bound on every face: `graphrag evaluate -k` scores recall up to 100, and a client asking
# for 60 passages gets 60 or a clear refusal, never a silent 20
MAX_K = 100
DEFAULT_CANDIDATES = 20  # how many of the mode's top chunks the reranker scores
MAX_CANDIDATES = 200
_ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


@dataclass(frozen=True)
class Option:
    """How one AskOptions field is offered on every face.

    ``key``: its name in a JSON body (``/chat``, ``/v1``; the MCP tools, whose parameters are
    Python names, use the field's own name); ``flags``: its command-line flags, each with the value
    it sets and its own help (none: one ``--key VALUE`` option); ``low``/``high``: an integer's
    bounds; ``min_length``/``max_length``: a text's; ``date``: a YYYY-MM-DD date; ``envvar``: the
    command line's default when no flag is given; ``help``: what it does, with an example, for
    every face."""

    help: str
    key: str = ""
    flags: tuple[tuple[str, object, str], ...] = ()
    short: str = ""  # a one-letter flag beside --key (-k)
    metavar: str = ""
    choices: tuple[str, ...] = ()
    low: int | None = None
    high: int | None = None
    min_length: int | None = None
    max_length: int | None = None
    date: bool = False
    envvar: str = ""


def _option(default, option: Option):
    return field(default=default, metadata={"option": option})


def check_date(value, name: str) -> str | None:
    """`value` as a real calendar date written YYYY-MM-DD (documents' dates compare as such), or
    None; anything else is refused in one line naming `name`."""
    if value is None:
        return None
    try:
        if not isinstance(value, str) or not _ISO_DATE.fullmatch(value):
            raise ValueError
        return date.fromisoformat(value).isoformat()
    except ValueError:
        raise GraphragError(f"{name} {value!r} is not a date: write YYYY-MM-DD, e.g. 2024-05-01") from None


def check_choice(name: str, value, choices: tuple[str, ...]) -> str:
    """`value` when it is one of `choices`; otherwise refused in one line that lists them."""
    if value not in choices:
        label = {"convert": "conversion", "web_mode": "web mode"}.get(name, name)
        raise GraphragError(f"unknown {label} {value!r}: use one of {', '.join(choices)}")
    return value


def check_range(date_from: str | None, date_to: str | None, names: tuple[str, str] = ("--from", "--to")) -> None:
    """Refuse a date range that ends before it starts (nothing could match)."""
    if date_from and date_to and date_from > date_to:
        raise GraphragError(f"{names[0]} {date_from} is after {names[1]} {date_to}: nothing could match")


@dataclass(frozen=True)
class AskOptions:
    """The settings of one question; checked when made, so every face refuses the same things."""

    mode: str = _option(
        DEFAULT_MODE,
        Option(
            "Retrieval mode, e.g. hybrid. global: answer from the whole corpus (every document "
            "that mentions the question's topic, or the themes of its communities), whatever the wording.",
            choices=ANSWER_MODES,
        ),
    )
    k: int = _option(5, Option("How many chunks of evidence, e.g. 8.", short="-k", low=1, high=MAX_K))
    corpus: str | None = _option(None, Option("Only documents of this corpus, e.g. grimm.", max_length=MAX_KEY_CHARS))
    about: str | None = _option(
        None,
        Option(
            "Only chunks that mention this entity or place (or a story's own entity of it, or the one it "
            "is an instance of): its id, or a name or alias (accents and case aside; of several entities of "
            "that name, the one most chunks mention; --explain says which), e.g. Babylon.",
            metavar="ENTITY",
            min_length=1,
            max_length=MAX_KEY_CHARS,
        ),
    )
    # ISO dates, inclusive; the question's own time expression narrows them
    date_from: str | None = _option(
        None,
        Option("Only documents dated on or after, e.g. 2024-05-01.", key="from", metavar="YYYY-MM-DD", date=True),
    )
    date_to: str | None = _option(
        None, Option("Only documents dated on or before, e.g. 2024-12-31.", key="to", metavar="YYYY-MM-DD", date=True)
    )
    use_llm: bool = _option(
        True,
        Option(
            "Write the answer with the configured LLM; false: an extractive answer, even with an LLM configured.",
            key="llm",
            flags=(("--no-llm", False, "Answer extractively even when an LLM is configured."),),
        ),
    )
    convert: str = _option(
        "auto",
        Option(
            "Convert the answer between simplified and traditional Chinese (OpenCC; citations untouched), "
            "e.g. s2t. auto: to the question's script. Env: GRAPHRAG_CONVERT.",
            choices=CONVERSIONS,
            envvar="GRAPHRAG_CONVERT",
        ),
    )
    rerank: bool = _option(
        False,
        Option(
            "Reorder the top candidates with the reranker GRAPHRAG_RERANKER names (the server's own, over HTTP).",
            flags=(
                (
                    "--rerank",
                    True,
                    "Reorder the top candidates with the reranker (GRAPHRAG_RERANKER or --reranker). "
                    "Env: GRAPHRAG_RERANK=1.",
                ),
            ),
            envvar="GRAPHRAG_RERANK",
        ),
    )
    rerank_candidates: int = _option(
        DEFAULT_CANDIDATES,
        Option("How many of the mode's top chunks the reranker scores, e.g. 40.", low=1, high=MAX_CANDIDATES),
    )
    judge: str = _option(
        "auto",
        Option(
            "The score gate and relevance judge: auto (only weak evidence is judged), always (the LLM judges "
            "every piece of evidence) or off (answer from whatever was retrieved).",
            flags=(
                (
                    "--judge",
                    "always",
                    "Let the LLM judge every piece of evidence relevant or not (by default only weak evidence).",
                ),
                (
                    "--no-gate",
                    "off",
                    "No score gate and no judge: answer from whatever was retrieved. Env: GRAPHRAG_GATE=off.",
                ),
            ),
            choices=GATES,
            envvar="GRAPHRAG_GATE",
        ),
    )
    web_mode: str = _option(
        "auto",
        Option(
            "The web search (GRAPHRAG_WEB_SEARCH): auto (only when the graph has nothing relevant), always "
            "(alongside the graph) or off (never).",
            key="web",
            flags=(
                (
                    "--web",
                    "always",
                    "Search the web as well as the graph (--web), or never (--no-web). By default the configured "
                    "web search (GRAPHRAG_WEB_SEARCH) runs only when the graph has nothing relevant.",
                ),
                ("--no-web", "off", ""),
            ),
            choices=WEB_MODES,
        ),
    )
    learn_web: bool = _option(
        False,
        Option(
            "Store the web pages an answer used as documents (kind web), so the graph knows them next time.",
            flags=(
                (
                    "--learn-web",
                    True,
                    "Store the web pages an answer used as documents (kind web), so the graph knows them next time.",
                ),
            ),
        ),
    )
    today: date | None = None  # "last month" is counted from it; None: today (no face sets it)

    def __post_init__(self) -> None:
        for spec, name, value in _offered(self):
            if spec.choices:
                check_choice(name, value, spec.choices)
            if spec.low is not None and (isinstance(value, bool) or not isinstance(value, int)):
                raise GraphragError(f"{_label(name)} must be a whole number, not {value!r}")
            if spec.high is not None and not spec.low <= value <= spec.high:
                raise GraphragError(f"{_label(name)} must be between {spec.low} and {spec.high}, not {value}")
            if value is not None and spec.max_length is not None and len(value) > spec.max_length:
                raise GraphragError(f"{name} is {len(value)} characters long: at most {spec.max_length}")
            if value is not None and spec.min_length and len(value) < spec.min_length:
                raise GraphragError(f"{name} is empty: name one, or leave it out")
            if spec.date:
                check_date(value, spec.key)
        check_range(self.date_from, self.date_to, ("from", "to"))

    def but(self, **changes) -> AskOptions:
        """These options with some changed (checked again)."""
        return dataclasses.replace(self, **changes)


def _label(name: str) -> str:
    return name.replace("_", " ")


@functools.cache
def options() -> tuple[tuple[dataclasses.Field, Option], ...]:
    """Every AskOptions field a face offers, in the order the command line lists them, with its Option
    (its `key` filled in: the field's own name unless it has another)."""
    found = []
    for f in dataclasses.fields(AskOptions):
        spec = f.metadata.get("option")
        if spec is not None:
            found.append((f, spec if spec.key else dataclasses.replace(spec, key=f.name)))
    return tuple(found)


def request_body(made: AskOptions) -> dict:
    """These options as `POST /chat`'s body (and `/v1`'s extra fields) name them."""
    return {spec.key: getattr(made, f.name) for f, spec in options()}


def _offered(made: AskOptions):
    for f, spec in options():
        yield spec, f.name, getattr(made, f.name)
