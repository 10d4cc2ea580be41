"""Question analysis: the time filter, keywords, language, route and the entities a question names."""

from __future__ import annotations

import re
import time
from datetime import date

from ...text import contains_word, fold, name_key
from ..base import Analysis, Filters, lucene_query
from .dates import parse_time_range, strip_time_expression
from .keywords import keywords
from .language import detect_language
from .relations import route

_HAN = re.compile("[\u3400-\u9fff]")


class QuestionAnalyzer:
    """Analyses questions against one graph (remembering per corpus whether its documents carry dates)."""

    def __init__(self, graph, timings: dict[str, float] | None = None):
        self.graph = graph
        self.timings: dict[str, float] = timings if timings is not None else {}
        self._dated: dict[str | None, bool] = {}

    def analyze(
        self,
        question: str,
        corpus: str | None = None,
        date_from: str | None = None,
        date_to: str | None = None,
        today: date | None = None,
    ) -> Analysis:
        started = time.perf_counter()
        rng = parse_time_range(question, today or date.today())
        filters = Filters(corpus=corpus, date_from=date_from, date_to=date_to)
        if rng is not None and (date_from or date_to or not self._has_dates(corpus)):
            # Explicit --from/--to win; and in a corpus without dated documents a year in the
            # question is content ("born in 1990"), not a filter that would exclude everything.
            filters.ignored_time_expression = rng.expression
            rng = None
        if rng is not None:
            filters.date_from = rng.start.isoformat() if rng.start else None
            filters.date_to = rng.end.isoformat() if rng.end else None
            filters.time_expression = rng.expression
        search_text = strip_time_expression(question, rng) if rng else question
        words = keywords(search_text)
        # a Chinese run goes to the name index whole as well: keywords cut it at function words,
        # and a name can hold one ("成都" holds "都")
        names_words = keywords(search_text, 40) + re.findall(r"[\u3400-\u9fff\uf900-\ufaff]{2,}", search_text)
        found, ambiguous = self.disambiguate(self.entities(search_text, names_words), filters.corpus)
        analysis = Analysis(
            question,
            search_text,
            words,
            found,
            route(question),
            detect_language(question),
            filters,
        )
        analysis.ambiguous = ambiguous
        self.timings["analyze_ms"] = (time.perf_counter() - started) * 1000
        return analysis

    def _has_dates(self, corpus: str | None) -> bool:
        if corpus not in self._dated:
            self._dated[corpus] = bool(self.graph.read_row("retrieval/has_dates", corpus=corpus)["dated"])
        return self._dated[corpus]

    def disambiguate(self, entities: list[dict], corpus: str | None) -> tuple[list[dict], list[dict]]:
        """(kept, set aside): where one name finds several things (13 places called "Alexandria"),
        the one most chunks of the scope link to is kept and the others are set aside, each with
        the name and the entity chosen over it. A story's entity and its canonical one
        (INSTANCE_OF) are one thing and stay together."""
        by_name: dict[str, list[dict]] = {}
        for e in entities:
            by_name.setdefault(name_key(e["matched"]), []).append(e)
        crowded = [group for group in by_name.values() if len(group) > 1]
        if not crowded:
            return entities, []
        ids = [e["id"] for group in crowded for e in group]
        weights = {w["id"]: w for w in self.graph.read("retrieval/entity_weights", ids=ids, corpus=corpus)}
        dropped: dict[str, dict] = {}
        for group in crowded:
            things: dict[str, list[dict]] = {}
            for e in group:
                things.setdefault(weights.get(e["id"], {}).get("canonical") or e["id"], []).append(e)
            if len(things) < 2:
                continue

            def weight(key: str, things=things) -> tuple:
                members = things[key]
                chunks = sum(weights.get(e["id"], {}).get("chunks") or 0 for e in members)
                relations = sum(weights.get(e["id"], {}).get("relations") or 0 for e in members)
                return (-chunks, -relations, key)

            ranked = sorted(things, key=weight)
            chosen = ranked[0]
            for key in ranked[1:]:
                for e in things[key]:
                    dropped[e["id"]] = dict(e, chosen=chosen, chunks=weights.get(e["id"], {}).get("chunks") or 0)
        kept = [e for e in entities if e["id"] not in dropped]
        for e in kept:
            if e["id"] in weights:
                e["chunks"] = weights[e["id"]].get("chunks") or 0
        return kept, list(dropped.values())

    def entities(self, text: str, words: list[str]) -> list[dict]:
        """Known entities whose name or an alias occurs in the question.

        Names are compared accent- and case-folded, on word boundaries ("Edric" does not find
        "Edrick"). Each entity comes with its type (from the graph) and the name that found it
        (`matched`); where one name found holds another ("Mount Greyhorn", "Greyhorn"), only
        the longer one counts.
        """
        query = lucene_query(words, " OR ")
        if not query:
            return []
        folded = fold(text)
        found: dict[str, dict] = {}
        # the full-text shortlist as one record: a hundred rows one by one cost the driver more
        # than the search costs the server
        for row in self.graph.read_row("retrieval/question_entity_list", query=query, limit=100)["rows"]:
            if row["id"] in found:
                continue
            hits = [
                name
                for name in dict.fromkeys(row["names"] or [row["name"]])
                if isinstance(name, str)
                and len(name.strip()) >= (2 if _HAN.search(name) else 3)
                and contains_word(folded, fold(name.strip()))
            ]
            if hits:
                found[row["id"]] = {
                    "id": row["id"],
                    "name": row["name"],
                    "type": row.get("type"),
                    "matched": max(hits, key=len).strip(),
                    "documentId": row.get("documentId"),
                    "labels": [label for label in row["labels"] if label != "__Entity__"],
                }
        kept = list(found.values())
        keys = {e["id"]: name_key(e["matched"]) for e in kept}
        kept = [
            e
            for e in kept
            if not any(keys[e["id"]] != keys[o["id"]] and keys[e["id"]] in keys[o["id"]] for o in kept if o is not e)
        ]
        # in the order the question names them; one name's entities together, by id
        return sorted(kept, key=lambda e: (folded.find(fold(e["matched"])), e["id"]))
