"""Authors as people: `(:Person:__Entity__ {id: "person:" + normName})-[:AUTHORED]->(:Document)`.

A document's `authors` (HTML meta tags or RDFa, PDF info, front matter) are names as the file
writes them. Each becomes one person for the whole graph: "Heath, Sebastian" is read as
"Sebastian Heath", a list in one string ("Ana Lima; Bo Chen", "Ana Lima and Bo Chen") is split,
and a name with only initials for its given names ("S. Heath") is the person of that surname
whose given name has those initials, when the graph (or the same batch) knows exactly one;
otherwise it is a person of its own. The edges are written in the transaction that writes the
document, so every way in (load, learn, upload, crawl) gets them; a document loaded again with
other authors loses the stale edges, and a person left with no relationship at all goes too.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from graphrag_cypher.text import collapse_whitespace, norm_name

ID_PREFIX = "person:"
MAX_NAME_WORDS = 6  # longer is an affiliation or a sentence, not a name
MAX_NAME_CHARS = 200  # longer is a blob, not a name (and a person's id is an index key)
_SUFFIXES = {"jr", "sr", "ii", "iii", "iv", "phd", "md"}
_LIST_SPLIT = re.compile(r"\s*(?:;|&|\band\b|\bund\b|\bet\b)\s*", re.I)
_NOT_A_NAME = re.compile(r"[\d@/<>{}\[\]|=]|https?:|www\.", re.I)
# a collective byline is no person: "Sample Corpus Authors", "The Editors", "ISAW Staff", "Wikipedia contributors"
_COLLECTIVE = re.compile(
    r"\b(?:authors?|editors?|editorial|staff|team|contributors?|committee|group|board|office|press|society|"
    r"institute|university|museum|library|project|department|association|foundation|anonymous|unknown|various)\b",
    re.I,
)
_INITIAL = re.compile(r"^[^\W\d_]\.?$|^(?:[^\W\d_]\.){2,}$")


def _values(authors) -> list[str]:
    """A document's `authors` value (a list, or one string) as its strings."""
    values = authors if isinstance(authors, list) else [authors]
    return [v for v in values if isinstance(v, str) and v.strip()]


def _looks_like_name(name: str) -> bool:
    words = name.split()
    return (
        0 < len(words) <= MAX_NAME_WORDS
        and len(name) <= MAX_NAME_CHARS
        and not _NOT_A_NAME.search(name)
        and not _COLLECTIVE.search(name)
        and any(c.isalpha() for c in name)
    )


def _reorder(name: str) -> str:
    """ "Heath, Sebastian" → "Sebastian Heath"; "Smith, John, Jr." → "John Smith Jr."."""
    parts = [p.strip() for p in name.split(",") if p.strip()]
    if len(parts) < 2:
        return name
    suffix = [p for p in parts[2:] if p.lower().strip(".") in _SUFFIXES]
    if len(parts) - len(suffix) != 2:
        return name
    last, first = parts[0], parts[1]
    if first.lower().strip(".") in _SUFFIXES:
        return name  # "John Smith, Jr." is written in order already
    return " ".join([first, last, *suffix])


def split_names(raw: str) -> list[str]:
    """One author string as the names it holds, each in given-name-first order."""
    text = collapse_whitespace(str(raw or "")).strip(" ,;.")
    if not text:
        return []
    names = []
    for part in _LIST_SPLIT.split(text):
        part = part.strip(" ,")
        if not part:
            continue
        pieces = [p.strip() for p in part.split(",") if p.strip()]
        # "Ana Lima, Bo Chen": every piece a name of its own; "Heath, Sebastian" / "Heath, S.": one name
        if (
            len(pieces) > 1
            and all(len(p.split()) > 1 for p in pieces)
            and not any(p.lower().strip(".") in _SUFFIXES for p in pieces)
        ):
            names.extend(pieces)
        else:
            names.append(_reorder(part))
    return [n for n in names if _looks_like_name(n)]


def _abbreviated(words: list[str]) -> bool:
    """Every given name is an initial: "S. Heath", "A. L. McMichael"."""
    return len(words) > 1 and all(_INITIAL.match(w) for w in words[:-1])


def _initials(words: list[str]) -> str:
    return "".join(w.replace(".", "")[:1].lower() if _INITIAL.match(w) else w[:1].lower() for w in words)


class Resolver:
    """Names to person ids: the same name always gives the same id, and an initials-only name
    the one known person it abbreviates. `known` is (id, name) of persons already in the graph."""

    def __init__(self, known: Iterable[tuple[str, str]] = ()):
        self.full: dict[tuple[str, str], set[str]] = {}  # (surname key, initials of given names) → ids
        self.names: dict[str, str] = {}
        for pid, name in known:
            self._remember(pid, name)

    def _remember(self, pid: str, name: str) -> None:
        words = name.split()
        self.names.setdefault(pid, name)
        if len(words) > 1 and not _abbreviated(words):
            given = words[:-1]
            # "Sebastian Heath" answers "S. Heath"; "Eric C. Kansa" both "E. C. Kansa" and "E. Kansa"
            for n in range(1, len(given) + 1):
                self.full.setdefault((norm_name(words[-1]), _initials(given[:n])), set()).add(pid)

    def person(self, name: str) -> dict | None:
        key = norm_name(name)
        if not key:
            return None
        words = name.split()
        pid = ID_PREFIX + key
        if _abbreviated(words):
            found = self.full.get((norm_name(words[-1]), _initials(words[:-1])), set())
            if len(found) == 1:
                pid = next(iter(found))
                return {"id": pid, "name": self.names[pid], "normName": pid[len(ID_PREFIX) :]}
        self._remember(pid, name)
        return {"id": pid, "name": name, "normName": key}

    def people(self, authors) -> list[dict]:
        """A document's `authors` value (a list or one string) as person rows, in order, once each."""
        out: dict[str, dict] = {}
        for value in _values(authors):
            for name in split_names(value):
                person = self.person(name)
                if person is not None:
                    out.setdefault(person["id"], person)
        return list(out.values())


def surnames(docs: Iterable[dict]) -> list[str]:
    """The surname keys the documents' authors have: what `authors/known_persons` reads."""
    keys = set()
    for doc in docs:
        for value in _values(doc.get("authors")):
            for name in split_names(value):
                keys.add(norm_name(name.split()[-1]))
    return sorted(k for k in keys if k)


def authored_rows(known: Iterable[dict], docs: list[dict]) -> list[dict]:
    """`authors/write_authored`'s rows: per document (`id`, `authors`) its person rows."""
    resolver = Resolver((row["id"], row["name"]) for row in known)
    # full names first, so an initials-only name finds a person written in the same batch
    for doc in docs:
        for value in _values(doc.get("authors")):
            for name in split_names(value):
                if not _abbreviated(name.split()):
                    resolver.person(name)
    return [{"id": doc["id"], "persons": resolver.people(doc.get("authors"))} for doc in docs]


def write_authored(tx, docs: list[dict]) -> dict:
    """Within the caller's write transaction: the AUTHORED edges of `docs` (`id`, `authors`) as
    their authors say, stale ones dropped. Returns counts (persons, created, removed)."""
    from graphrag_cypher.db import query

    keys = surnames(docs)
    known = [r.data() for r in tx.run(query("authors/known_persons"), surnames=keys)] if keys else []
    rows = authored_rows(known, docs)
    if not rows:
        return {"persons": 0, "created": 0, "removed": 0}
    return tx.run(query("authors/write_authored"), docs=rows).single().data()


def backfill(graph, batch: int = 500) -> dict:
    """AUTHORED for documents loaded before authors became people: every document with an
    `authors` list and no AUTHORED edge. Returns counts (documents, persons, created)."""
    total = {"documents": 0, "persons": 0, "created": 0}
    after = ""
    while True:
        docs = graph.read("authors/unlinked_documents", after=after, limit=batch)
        if not docs:
            return total
        with graph.session() as session:
            counts = session.execute_write(write_authored, docs)
        total["documents"] += len(docs)
        total["persons"] += counts["persons"]
        total["created"] += counts["created"]
        after = docs[-1]["id"]
