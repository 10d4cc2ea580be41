"""`--about`: the entity (or place) evidence must be about, from an id or a name.

:func:`resolve_about` turns what the user wrote into the entity ids the retrieval queries filter
on (`Filters.about`: a chunk is evidence only when it MENTIONS one of them). An exact entity id
wins; otherwise the entities one of whose names (name, title, aliases, other names) equals the
value, accents, case, joiners and a leading article folded away, and of those the one the most
chunks in scope mention (cypher/queries/retrieval/entity_weights.cypher). The chosen entity's
INSTANCE_OF family comes with it: a story's own entity and its canonical one are one subject.
The Java `graphrag.search` resolves its `about` the same way (SearchProcedure.resolveAbout).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..errors import GraphragError
from ..text import norm_name
from .base import lucene_phrase

MAX_ABOUT = 200  # characters of an id or a name (the longest config text graphrag.search takes)
NAME_SHORTLIST = 1000  # full-text hits read for a name (the exact ones score highest)


def name_key(name: str) -> str:
    """A name as names are compared here: normName (folded, joiners dropped, punctuation as spaces)
    without a leading article ("The Silver-Lantern" ~ "silver lantern")."""
    return re.sub(r"^(?:the|a|an) ", "", norm_name(name))


@dataclass
class About:
    """What `--about VALUE` resolved to."""

    value: str
    ids: list[str]  # the chosen entity's id, then its INSTANCE_OF family
    chosen: dict  # {id, name, type, chunks}
    others: list[dict] = field(default_factory=list)  # other entities of that name, most chunks first
    reason: str = ""

    def to_dict(self) -> dict:
        return {
            "value": self.value,
            "ids": self.ids,
            "chosen": self.chosen,
            "others": self.others,
            "reason": self.reason,
        }


def resolve_about(graph, value: str, corpus: str | None = None) -> About:
    """The entity `value` names (an exact id first, else a name or alias) with its family; chunks
    are counted in `corpus` when given. An unknown value is a one-line GraphragError."""
    text = " ".join(str(value or "").split())
    if not text:
        raise GraphragError("--about is empty: give an entity id or name, e.g. --about Babylon")
    if len(text) > MAX_ABOUT:
        raise GraphragError(f"--about takes an id or a name of at most {MAX_ABOUT} characters, not {len(text)}")
    by_id = graph.read("retrieval/entity_weights", ids=[text], corpus=corpus)
    if by_id:
        chosen = _entity(by_id[0])
        ids = _family(graph, chosen["id"])
        # the others that bear its name, for the user to see what else the name could have meant
        named = _named(graph, chosen["name"]) if chosen["name"] else []
        others = [e for e in _weights(graph, named, corpus) if e["id"] not in ids]
        reason = f'"{text}" is the id of {_describe(chosen)}'
    else:
        candidates = _weights(graph, _named(graph, text), corpus)
        if not candidates:
            raise GraphragError(f'--about "{text}": no entity or place has this id or name')
        chosen = candidates[0]
        ids = _family(graph, chosen["id"])
        others = [e for e in candidates[1:] if e["id"] not in ids]
        if len(candidates) == 1:
            reason = f'"{text}" names one entity: {_describe(chosen)}'
        else:
            tied = sum(1 for e in candidates[1:] if e["chunks"] == chosen["chunks"])
            reason = (
                f'"{text}" names {len(candidates)} entities; chose {_describe(chosen)}, the one most chunks link to'
                + (f" (tied with {tied}: the first by id)" if tied else "")
            )
    if len(ids) > 1:
        reason += f"; with its INSTANCE_OF family, {len(ids)} entities"
    return About(text, ids, chosen, others, reason)


def _named(graph, text: str) -> list[str]:
    """The ids of the entities one of whose names is `text` (compared by name_key)."""
    key = name_key(text)
    if not key:
        return []
    rows = graph.read(
        "retrieval/about_names",
        normNames=sorted({norm_name(text), key}),
        query=_phrase(text),
        limit=NAME_SHORTLIST,
    )
    return sorted({r["id"] for r in rows if r["id"] is not None and any(name_key(n) == key for n in r["names"])})


def _phrase(text: str) -> str:
    """The name as one Lucene phrase of its escaped words ("" when it has none)."""
    return lucene_phrase(text.split())


def _weights(graph, ids: list[str], corpus: str | None) -> list[dict]:
    """The entities of `ids` with their chunks in scope, most first (then by id)."""
    if not ids:
        return []
    rows = [_entity(r) for r in graph.read("retrieval/entity_weights", ids=ids, corpus=corpus)]
    return sorted(rows, key=lambda e: (-e["chunks"], e["id"]))


def _family(graph, entity_id: str) -> list[str]:
    rows = graph.read("retrieval/about_family", id=entity_id)
    return list(rows[0]["ids"]) if rows else [entity_id]


def _entity(row: dict) -> dict:
    return {"id": row["id"], "name": row["name"], "type": row["type"], "chunks": int(row["chunks"] or 0)}


def _describe(entity: dict) -> str:
    name = entity["name"] or entity["id"]
    kind = f"{entity['type']}, " if entity.get("type") else ""
    return f"{entity['id']} ({name}, {kind}{entity['chunks']} chunks in scope)"
