"""The structured route: questions about the graph itself, answered from its structure.

Three families, in English and Chinese:

- **lookup** — "Who killed Eddard Stark?", "Whom did Arya Stark kill?", "Which characters
  belong to House Tully?", "Who played Tyrion?": the entities on the far side of one relation
  (or a chain of two: "Who killed the father of Jon Snow?") from the question's entity;
- **count** — "How many people did Arya Stark kill?": the same, counted ("3: A, B and C");
- **documents** — "Which tales mention a fox?", "How many of the ISAW articles mention
  Alexandria?": every document of the scope that mentions the term (on word boundaries, over
  the whole corpus, and through MENTIONS links to the entity it names), not the top k;
- **authored** — "Which articles did Sebastian Heath write?", "How many papers has Heath
  written?", "Who wrote Linked Coins?": the documents a person authored, or the authors of a
  document, read from ``(:Person)-[:AUTHORED]->(:Document)`` (the documents' metadata), each
  document cited.

Nothing here knows a data set. The relations come from the graph (its relationship types
and the labels at their ends) and their phrases from the schema that loaded them (recorded in
the graph as ``:__Schema``), or from built-in schemas, or from the type's name ("KILLED_BY" →
"killed by" / "killed"). A question is matched to a relation and a direction by those phrases:
lexically, on word stems around the masked entity ("who killed [X]" has "killed" before X, so
X is its object: the one killed), and else by embedding similarity of the masked question with
each phrase's sentences. Anything that does not match well, or matches and finds no edge, goes
back to the search route; `--explain` says why.

The package, one layer a module: ``words`` (tokens, phrase matching, document nouns), ``graph_catalog`` (the
relations and their phrases), ``plans`` (Plan, Hop, Refusal, Row), ``shape`` (counting, listing,
``looks_structured``), ``entities`` (which entity a name means), one module per family
(``lookup``, ``documents``, ``authored``), ``planner`` (``plan`` and ``run`` over them),
``answer_text`` (the cited answer), and text-to-Cypher for what the templates do not cover
(``text2cypher``, its bounded rows in ``cypher_rows``, their citations in ``cypher_citations``).
"""

from __future__ import annotations

from .answer_text import Structured, answer, evidence_of, phrase_for
from .authored import AUTHORED_FAMILIES, _authored_question
from .cypher_citations import from_cypher
from .documents import _NOT_ARTICLES, _NOT_DOCUMENTS, _ZH_DOC_NOUN, MAX_DOCUMENT_HITS, word_pattern
from .entities import choose_entity
from .graph_catalog import CATALOG_SECONDS, STRUCTURAL, Catalog, RelationSpec, catalog
from .lookup import EMBED_FLOOR, EMBED_MARGIN
from .planner import plan, run
from .plans import MAX_CANDIDATES, MAX_ROWS, Hop, Plan, Refusal, Row
from .shape import looks_structured
from .text2cypher import CypherAnswer, live_schema, text_to_cypher
from .words import _DOC_NOUNS, _ZH_DOC_NOUNS, tokens

__all__ = [
    "AUTHORED_FAMILIES",
    "CATALOG_SECONDS",
    "EMBED_FLOOR",
    "EMBED_MARGIN",
    "MAX_CANDIDATES",
    "MAX_DOCUMENT_HITS",
    "MAX_ROWS",
    "STRUCTURAL",
    "Catalog",
    "CypherAnswer",
    "Hop",
    "Plan",
    "Refusal",
    "RelationSpec",
    "Row",
    "Structured",
    "answer",
    "catalog",
    "choose_entity",
    "evidence_of",
    "from_cypher",
    "live_schema",
    "looks_structured",
    "phrase_for",
    "plan",
    "run",
    "text_to_cypher",
    "tokens",
    "word_pattern",
    # read by the global route's scope and by tests
    "_DOC_NOUNS",
    "_NOT_ARTICLES",
    "_NOT_DOCUMENTS",
    "_ZH_DOC_NOUN",
    "_ZH_DOC_NOUNS",
    "_authored_question",
]
