"""The structured answer's text: the rows' names or titles, each with its citation, in a sentence
that says the relation (or the documents, or the count) in the question's language."""

from __future__ import annotations

from dataclasses import dataclass, field

from graphrag_cypher import lexicon

from ..base import Evidence
from .authored import AUTHORED_FAMILIES, _authored_text
from .graph_catalog import RelationSpec, catalog
from .plans import Plan, Row
from .words import _GAP


@dataclass
class Structured:
    """A structured answer: the plan, its rows (each with the citation id it has) and the text."""

    plan: Plan
    rows: list[Row]
    total: int | float
    cites: list[str | None]
    text: str
    titled: str
    ms: float = 0.0
    method: str = "template"
    cypher: str | None = None
    cited: list[str] = field(default_factory=list)
    cut: str | None = None  # a text-to-Cypher answer: what of the statement's result was left out

    def to_dict(self) -> dict:
        out = dict(
            self.plan.to_dict(), method=self.method, count=len(self.rows), total=self.total, ms=round(self.ms, 1)
        )
        if self.cypher:
            out["cypher"] = self.cypher
        if self.cut:
            out["cut"] = self.cut
        return out

    def row_dicts(self) -> list[dict]:
        return [row.to_dict(cite) for row, cite in zip(self.rows, self.cites, strict=True)]


def evidence_of(rows: list[Row]) -> list[Evidence]:
    """One evidence chunk per row that has a document (its first matching chunk)."""
    out, seen = [], set()
    for row in rows:
        if row.document_id and row.chunk_id and row.chunk_id not in seen:
            seen.add(row.chunk_id)
            out.append(Evidence(row.chunk_id, row.document_id, row.title, row.uri, row.text, 1.0, ["structured"]))
    return out


def phrase_for(rel: RelationSpec, language: str, x_is_source: bool = True) -> tuple[str, bool]:
    """(phrase, x_first): how the answer says the relation with the question's entity first:
    "X <forward> names" when X is the source, "X <inverse> names" when it is the target and the
    relation has an inverse phrase, else (x_first False) "<forward> X: names"."""

    def pick(phrases) -> str | None:
        plain = [p for p in phrases if _GAP not in p]
        wanted = [p for p in plain if (not p.isascii()) == (language == "zh")]
        return (wanted or [p for p in plain if p.isascii()] or [None])[0]

    if not x_is_source and not rel.symmetric:
        inverse = pick(rel.inverse)
        if inverse and (language != "zh" or not inverse.isascii()):
            return inverse, True
        if language == "zh" and pick(rel.forward) and not (pick(rel.forward) or "").isascii():
            return pick(rel.forward) or "", False
    return pick(rel.forward) or rel.name.lower().replace("_", " "), x_is_source or rel.symmetric


def answer(graph, p: Plan, rows: list[Row], total: int | float, language: str) -> tuple[Structured, list]:
    """(structured, sources): the answer text over the rows, each name or title with its citation.

    A row from a document cites it (T2, D1, …); a row from a loaded record cites the record
    (R1, R2, …). Names and titles are written with `neutral`: no text from the data can open a
    citation or break a line."""
    cites, sources = _citations(rows)
    cited = [c for c in dict.fromkeys(cites) if c]
    if p.family in AUTHORED_FAMILIES:
        titled = _authored_text(p, rows, [None] * len(rows))  # the titles are in the text already
        return Structured(p, rows, total, cites, _authored_text(p, rows, cites), titled, cited=cited), sources
    labels = {s.cite: s.label for s in sources}

    def text(with_titles: bool) -> str:
        names = _listed(p, rows, cites, labels, language, with_titles)
        if p.family == "cypher":
            return _cypher_text(p, rows, total, names, language)
        if p.family in ("documents", "count_documents"):
            return _documents_text(p, rows, total, names, language)
        return _lookup_text(graph, p, rows, names, language)

    return Structured(p, rows, total, cites, text(False), text(True), cited=cited), sources


def _citations(rows: list[Row]) -> tuple[list[str | None], list]:
    """(the citation of each row or None, the sources cited): a row's document, else its record."""
    from ..answer import Source, sources_for

    sources = sources_for(evidence_of(rows))
    by_document = {s.document_id: s for s in sources}
    records: dict[str, Source] = {}
    cites: list[str | None] = []
    for row in rows:
        source = by_document.get(row.document_id or "")
        if source is None and row.record:
            source = records.get(row.record)
            if source is None:
                where, _, owner = row.record.partition("#")
                file = where.split(":", 1)[-1]
                source = records[row.record] = Source(f"R{len(records) + 1}", row.record, f"{file}: {owner}", None)
        cites.append(source.cite if source else None)
    return cites, sources + list(records.values())


def _listed(
    p: Plan, rows: list[Row], cites: list[str | None], labels: dict[str, str], language: str, with_titles: bool
) -> str:
    """The rows' names (documents: their titles) with their citations, or with the cited sources'
    titles (`with_titles`); a run of rows with one citation cites it once, after the last of them."""
    from ..answer import neutral

    zh = language == "zh"
    documents = p.family in ("documents", "count_documents")
    parts = []
    for i, (row, cite) in enumerate(zip(rows, cites, strict=True)):
        name = neutral(row.title or row.name) if documents else neutral(row.name)
        last_of_run = i + 1 == len(rows) or cites[i + 1] != cite
        if cite is None or (not documents and not last_of_run):
            parts.append(name)
        elif with_titles:
            parts.append(name if documents else f"{name} [{labels[cite]}]")
        else:
            parts.append(f"{name} [{cite}]")
    if documents:
        return ("；" if zh else "; ").join(parts)
    if zh or len(parts) < 2:
        return "、".join(parts)
    return ", ".join(parts[:-1]) + " and " + parts[-1]


def _cypher_text(p: Plan, rows: list[Row], total: int | float, names: str, language: str) -> str:
    """A text-to-Cypher answer: its one number, or its rows counted and listed."""
    zh = language == "zh"
    if p.term == "number":  # one number: the count itself
        return f"{total}" + ("。" if zh else ".")
    if not rows:
        return "查询没有结果。" if zh else "The query found nothing."
    return f"{len(rows)}：{names}。" if zh else f"{len(rows)}: {names}."


def _documents_text(p: Plan, rows: list[Row], total: int | float, names: str, language: str) -> str:
    """ "2 tales mention “fox”: A [D1]; B [D2]." (of the scope's total when counting): every document
    that writes any form of the term, the number first; when some write only another form, how many
    write it as asked and which forms the rest write: "5 of the 62 tales mention “giant” (3 “giant”,
    2 only “giants”): …", "1 of the 5 tales mentions “geese” (written “goose”): …"."""
    from ..answer import neutral

    term, noun = neutral(p.term), neutral(p.scope.get("noun") or "documents")
    if language == "zh":
        lead = f"{len(rows)} 篇" + (f"（共 {total} 篇）" if p.family == "count_documents" else "")
        return f"{lead}{noun}提到“{term}”" + (f"：{names}。" if rows else "。")
    one = len(rows) == 1
    if p.family == "count_documents":
        lead = f"{len(rows)} of the {total} {noun}"
    elif one:
        lead = f"1 {lexicon.singular(noun.lower()) if noun.isascii() else noun}"
    else:
        lead = f"{len(rows)} {noun}" if rows else f"None of the {total} {noun}"
    verb = "mentions" if one else "mention"
    split = p.scope.get("forms")
    breakdown = ""
    if split and split.get("other_documents"):
        others = " or ".join(f"“{neutral(f)}”" for f in split["others"]) or "another form"
        if split["as_written"]:
            breakdown = f" ({split['as_written']} “{term}”, {split['other_documents']} only {others})"
        else:  # "geese": every tale writes "goose"
            breakdown = f" (written {others})"
    return f"{lead} {verb} “{term}”{breakdown}" + (f": {names}." if rows else ".")


def _lookup_text(graph, p: Plan, rows: list[Row], names: str, language: str) -> str:
    """ "X <phrase> names." or "<Phrase> X: names." (X the question's entity, the phrase the
    relation's), counted for a count question; a chain of two says the first hop too."""
    from ..answer import neutral

    zh = language == "zh"
    cat = catalog(graph)
    x = neutral(p.entity["name"]) if p.entity else "?"
    hop = p.hops[-1]
    phrase, x_first = phrase_for(cat.relations[hop.relation], language, hop.x_is_source)
    if len(p.hops) > 1:
        first = p.hops[0]
        between, _ = phrase_for(cat.relations[first.relation], language, first.x_is_source)
        x = f"{x} → {between} →"
    if zh:
        sentence = f"{x}{phrase}：{names}" if x_first else f"{phrase}{x}：{names}"
    elif x_first:
        sentence = f"{x} {phrase} {names}"
    else:
        sentence = f"{phrase[:1].upper()}{phrase[1:]} {x}: {names}"
    if p.family == "count":
        sentence = f"{len(rows)}: {sentence}"
    return sentence + ("。" if zh else ".")
