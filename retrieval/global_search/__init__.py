"""Global search: questions about a whole corpus, answered from every document or from the
graph's communities, with or without an LLM.

Two families, in English and Chinese, chosen only by explicit wording (or `ask --mode global`):

- **topic** — "What do the ISAW papers say about harbours?", "What is said about witches in
  the tales?", "How do the stories portray wolves?", "格林童话关于女巫说了什么？": every document
  of the scope whose stored text holds the term (or its singular/plural) on word boundaries,
  documents with two or more mentions first; one cited sentence from each, up to a budget
  (TOPIC_BUDGET documents, whatever `--k` is), then how many more mention it; grouped under
  their community's title where communities are built. Needs no community.
- **themes** — "What are the main themes of the Grimm tales?", "Give me an overview of the
  ISAW papers", "Summarize the tales", "主要主题是什么？": the communities of the scope at the
  level whose count of substantial in-scope communities is nearest THEME_TARGET (at least
  THEME_MIN where a level has that many), ranked by in-scope member chunks; a line per theme:
  its title, key phrases and a cited sentence of an in-scope member chunk nearest the
  community's centroid (a different document per line where possible). Needs communities;
  without any, the question goes to the local route and says why.

Without an LLM both are extractive and say so. With one, Microsoft GraphRAG's map-reduce: a
request per community (its report and in-scope sources → points with citations and a 0-100
score, MAP_PARALLEL in flight), then one streamed answer from the best points, its citations
checked by `answer.CitationFilter`. Everything reads in read transactions.

The layers, one module each: `patterns` (the wording, as a table) and `detect` (classify, forced);
`scope`; `topic` (with `terms`, the term's forms) and `themes`; `extractive` and `mapreduce`, the
two ways to write the answer; `answering`, which runs them.
"""

from .answering import answer
from .detect import GlobalQuestion, classify, forced
from .extractive import EXTRACTIVE_NOTES
from .mapreduce import MAP_COMMUNITIES, MAP_PARALLEL, MAP_SOURCES, REDUCE_POINTS, _parse_points, prompt
from .patterns import corpus_regex
from .result import GlobalResult
from .scope import Scope, scope_of
from .terms import forms, java_pattern, python_pattern
from .themes import (
    NO_COMMUNITIES,
    REPRESENTATIVES,
    THEME_BUDGET,
    THEME_DOCUMENTS,
    THEME_MIN,
    THEME_TARGET,
    choose_level,
)
from .topic import CHUNKS_PER_DOCUMENT, GROUPS_TARGET, MAX_HITS, TOPIC_BUDGET, mentioning

__all__ = [
    "CHUNKS_PER_DOCUMENT",
    "EXTRACTIVE_NOTES",
    "GROUPS_TARGET",
    "MAP_COMMUNITIES",
    "MAP_PARALLEL",
    "MAP_SOURCES",
    "MAX_HITS",
    "NO_COMMUNITIES",
    "REDUCE_POINTS",
    "REPRESENTATIVES",
    "THEME_BUDGET",
    "THEME_DOCUMENTS",
    "THEME_MIN",
    "THEME_TARGET",
    "TOPIC_BUDGET",
    "GlobalQuestion",
    "GlobalResult",
    "Scope",
    "_parse_points",
    "answer",
    "choose_level",
    "classify",
    "corpus_regex",
    "forced",
    "forms",
    "java_pattern",
    "mentioning",
    "prompt",
    "python_pattern",
    "scope_of",
]
