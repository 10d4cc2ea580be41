"""What a request of a key may act on: the corpus it names checked against the key's corpora, or
filled in (apart from the door, so that the ask options check it again without importing it)."""

from __future__ import annotations

from graphrag_cypher.principal import Principal, current


class Refused(Exception):
    """A request the door answers itself: status, one line, and the headers it needs."""

    def __init__(self, status: int, message: str, headers: dict | None = None):
        super().__init__(message)
        self.status, self.message, self.headers = status, message, headers or {}


def scoped_corpus(corpus: str | None, write: bool = False, principal: Principal | None = None) -> str | None:
    """The corpus a request of `principal` (the current one) acts on: the one it names, if its key
    may; else its key's only corpus; an unscoped principal's choice unchanged. A read of a key of
    several corpora that names none is None: every query filters to the key's corpora (`$scope`).
    Refused: a corpus outside the key (403), or a write of a key of several corpora that names
    none (422: a write goes into one)."""
    who = principal or current()
    corpus = (corpus or "").strip() or None
    if who.corpora is None:
        return corpus
    if corpus is not None:
        if corpus not in who.corpora:
            raise Refused(
                403,
                f"key {who.name!r} may not {'write to' if write else 'read'} corpus {corpus!r}: "
                f"it holds {', '.join(who.corpora)}",
            )
        return corpus
    if len(who.corpora) == 1:
        return who.corpora[0]
    if not write:
        return None  # read in all of the key's corpora: the queries filter on $scope
    raise Refused(
        422, f"key {who.name!r} holds corpora {', '.join(who.corpora)}: name the one to write to with `corpus`"
    )
