"""What every linker shares: one options shape, one result shape, one progress callback.

Each linker (`places`, `titles`, `phrases`, `entities`, `wikidata`) is one function,
``link_<name>(graph, options) -> result``, taking its subclass of :class:`LinkOptions` and
returning its subclass of :class:`LinkResult`::

    result = link_places(graph, PlaceLinkOptions(corpus="isaw", dry_run=True, progress=print))
    result.found, result.created, result.removed, result.skipped, result.seconds
    result.to_dict()  # what `graphrag link places --json` prints

Progress is one callable for all of them, ``progress(message)``: a line saying where the
run is ("12000/41000 names"); the CLI shows it as a live status line, or not at all under
``--json``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar, TypeVar

from graphrag_cypher.errors import GraphragError

Progress = Callable[[str], None]


def no_progress(message: str) -> None:
    """The progress callback that shows nothing."""


@dataclass(kw_only=True)
class LinkOptions:
    """What every linker is told: which documents, whether to write, how much per round trip,
    where to say how far it is."""

    corpus: str | None = None  # only chunks of documents of this corpus (None: all)
    dry_run: bool = False  # find and decide, write nothing
    batch: int = 5000  # rows per write statement (the Wikidata linker: ids per query)
    progress: Progress = field(default=no_progress, repr=False, compare=False)

    def refuse(self, linker: str, *, corpus: bool = False, dry_run: bool = False) -> None:
        """A one-line error when a common option this linker cannot honour is set."""
        if corpus and self.corpus is not None:
            raise GraphragError(f"link {linker} works on all corpora at once: it has no corpus option")
        if dry_run and self.dry_run:
            raise GraphragError(f"link {linker} has no dry run")


Options = TypeVar("Options", bound=LinkOptions)


def options_for(cls: type[Options], options: Options | None, fields: dict[str, Any]) -> Options:
    """`options`, or the defaults, with `fields` set (so ``link_titles(graph, corpus="x")`` works)."""
    if options is None:
        return cls(**fields)
    return dataclasses.replace(options, **fields) if fields else options


@dataclass(kw_only=True)
class LinkResult:
    """What a run found and did. The common counts have one name in Python for every linker;
    `JSON_KEYS` gives each its name in the linker's --json output (None: not shown), which
    stays what it has always been. A subclass adds what only its linker counts."""

    found: int = 0  # the links the run decided on (those it makes, or would make on a dry run)
    created: int = 0  # links written that were not there
    updated: int = 0  # links kept whose properties changed
    removed: int = 0  # links an earlier run made that this one no longer makes
    total: int | None = None  # the linker's links in the graph afterwards (None: not counted)
    dry_run: bool = False
    seconds: dict = field(default_factory=dict)  # phase → seconds

    JSON_KEYS: ClassVar[dict[str, str | None]] = {}

    @property
    def skipped(self) -> dict[str, int]:
        """Reason → how many candidates were passed over for it (the linker says which)."""
        return {}

    def to_dict(self) -> dict:
        out: dict[str, Any] = {}
        for f in dataclasses.fields(self):
            if not f.repr:
                continue
            key = self.JSON_KEYS.get(f.name, f.name)
            value = getattr(self, f.name)
            if key is not None and not (f.name == "total" and value is None):
                out[key] = value
        return out

    def __getitem__(self, key: str) -> Any:
        """Read a count by its --json name, as from the dict linkers used to return."""
        return self.to_dict()[key]
