"""The place linker's names: read from Neo4j, built into a name table, kept on disk.

The name table (folded name → place ids), each place's profile and the fast engine's
Aho–Corasick automaton are built from the places in Neo4j (`places/names.cypher`) and kept
under ``.graphrag/cache/``, one file per set of name rules (:func:`rules_key`), with the
fingerprint of the places they were built from. Each run has Neo4j fingerprint the places
again (`places/fingerprint.cypher`) and decides nothing with the file's names unless they
are the same (:class:`PlaceNameSource`): while the gazetteer is unchanged a run reads no
names at all, and a changed gazetteer is never linked with an old table. A file that cannot
be read, or an automaton that cannot be loaded, is built again; a cache that cannot be
written only costs time.
"""

from __future__ import annotations

import hashlib
import json
import marshal
import os
import sys
import unicodedata
from collections import defaultdict
from concurrent.futures import Executor
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

import ahocorasick

from graphrag_cypher.db import Graph, query
from graphrag_cypher.text import fold

from .disambiguation import Profiles
from .matcher import Matcher, NameTable, build_name_table

CACHE_DIR = Path(".graphrag") / "cache"
CACHE_KEEP = 4  # name tables kept on disk, one per set of name rules (the most recently used)
# The code and data a cached table was built by: a change to any of them is a new file.
BUILT_BY = ("matcher.py", "name_cache.py", "disambiguation.py", "exonyms.txt")


@dataclass
class PlaceNames:
    """The names both engines look for, built from the places with this fingerprint."""

    fingerprint: list  # [places, MD5]: see places/fingerprint.cypher
    places: int
    table: NameTable
    profiles: Profiles  # place id → Profile (what the decision knows of it, made on first use)
    exonyms: dict = field(default_factory=dict)  # folded English name → place ids it was given to
    automaton: dict | None = None  # Matcher(table).save(), kept with the table in the cache

    def matcher(self, *, require_capital: bool, skip_tails: bool) -> Matcher:
        """The fast engine's matcher: from the saved automaton when there is one that loads."""
        if self.automaton is not None:
            try:
                return Matcher(self.table, saved=self.automaton, require_capital=require_capital, skip_tails=skip_tails)
            except (TypeError, ValueError, KeyError, IndexError):  # a damaged cache file: build it again
                self.automaton = None
        return Matcher(self.table, require_capital=require_capital, skip_tails=skip_tails)


class PlaceNameSource:
    """The run's place names: the name table, each place's profile and the fast engine's automaton.

    With a cache file for these name rules they are there at once, unconfirmed (Neo4j may be
    fingerprinting the places meanwhile, in `pool`): :meth:`confirm` says whether they are
    still the places the file was built from, and if not, reads the names again and rewrites
    the file. Without a file (or a cache: `cache_dir` None) the names are read, built and
    saved at once. `only_keys` keeps only those folded names (benchmarks on a sample).
    """

    def __init__(
        self,
        graph: Graph,
        *,
        sources: list[str] | None,
        min_length: int,
        stoplist: frozenset[str],
        cache_dir: Path | None,
        only_keys: frozenset[str] | None = None,
        pool: Executor | None = None,
    ):
        self.graph, self.sources = graph, sorted(sources) if sources else None
        self.min_length, self.stoplist, self.only_keys = min_length, stoplist, only_keys
        self.path = (
            Path(cache_dir) / f"place-names-{rules_key(self.sources, min_length, stoplist)}.marshal"
            if cache_dir
            else None
        )
        on_disk = self.path is not None and self.path.exists()
        self._asked = pool.submit(graph.read, "places/fingerprint", sources=self.sources) if pool and on_disk else None
        self.names: PlaceNames  # from the cache file, or read (and built) at once
        cached = read_cache(self.path) if self.path is not None and on_disk else None
        self.cached = self.unconfirmed = cached is not None
        if cached is None:
            self._read()
        else:
            self.names = cached
            self._restrict()

    def confirm(self) -> bool:
        """True when the names in hand are those of the places now; else they are read again."""
        if not self.unconfirmed:
            return True
        [row] = self._asked.result() if self._asked else self.graph.read("places/fingerprint", sources=self.sources)
        self.unconfirmed, self._asked = False, None
        if self.names.fingerprint == [row["places"], row["fingerprint"]]:
            return True
        self._read()
        return False

    def _read(self) -> None:
        self.names = read_place_names(self.graph, self.sources, self.min_length, self.stoplist)
        self.cached = False
        if self.path:
            self.names.automaton = Matcher(self.names.table).save()
            write_cache(self.path, self.names)
        self._restrict()

    def _restrict(self) -> None:
        if self.only_keys is not None:
            table = self.names.table
            table.targets = {k: v for k, v in table.targets.items() if k in self.only_keys}
            self.names.automaton = None  # it was built for all the names


def read_place_names(graph: Graph, sources: list[str] | None, min_length: int, stoplist: frozenset[str]) -> PlaceNames:
    """Build the names from the places in Neo4j (of these gazetteers; None: all)."""
    row = graph.read_row("places/names", sources=sources)
    names: dict[str, list[str]] = defaultdict(list)
    raw = {}
    for pid, aliases, (lat, lon), (title, description, source, types) in sorted(
        zip(row["ids"], row["names"], row["points"], row["profiles"], strict=True), key=lambda r: r[0]
    ):
        for name in aliases or []:
            if isinstance(name, str):
                names[name].append(pid)
        raw[pid] = [title, description, source, list(types or []), lat, lon, len(aliases or [])]
    profiles = Profiles(raw, fold)
    exonyms: dict[str, list[str]] = defaultdict(list)
    for name, pid in load_exonyms():
        if pid in profiles:
            if pid not in names[name]:
                names[name].append(pid)
            exonyms[fold(name)].append(pid)
    table = build_name_table(names, min_length=min_length, stoplist=stoplist)
    return PlaceNames([len(row["ids"]), row["fingerprint"]], len(row["ids"]), table, profiles, dict(exonyms))


def load_exonyms() -> list[tuple[str, str]]:
    """English names the gazetteer lacks, given to a record (`exonyms.txt`: "Egypt = pleiades:981503")."""
    pairs = []
    text = resources.files("graphrag_cypher.linkers").joinpath("exonyms.txt").read_text("utf-8")
    for line in text.splitlines():
        line = line.split("#", 1)[0].strip()
        if "=" in line:
            name, pid = (part.strip() for part in line.split("=", 1))
            if name and pid:
                pairs.append((name, pid))
    return pairs


def rules_key(sources: list[str] | None, min_length: int, stoplist: frozenset[str]) -> str:
    """The cache file for a name table: one per set of name rules and version of the code
    and queries that build it (the places it was built from are checked each run)."""
    code = hashlib.sha256()
    for module in BUILT_BY:
        code.update(resources.files("graphrag_cypher.linkers").joinpath(module).read_bytes())
    for name in ("places/names", "places/fingerprint"):
        code.update(query(name).encode())
    automaton = os.stat(ahocorasick.__file__)  # the saved automaton fits one build of pyahocorasick
    key = [
        sources,
        min_length,
        sorted(stoplist),
        code.hexdigest(),
        unicodedata.unidata_version,
        list(sys.version_info[:2]),  # marshal's format follows the Python version
        [Path(ahocorasick.__file__).name, automaton.st_size, automaton.st_mtime_ns],
    ]
    return hashlib.sha256(json.dumps(key, ensure_ascii=False).encode()).hexdigest()[:32]


def read_cache(path: Path) -> PlaceNames | None:
    """The names saved at `path`, or None when the file cannot be read as such."""
    try:
        data = marshal.loads(path.read_bytes())
        table = NameTable(
            targets=data["targets"],
            too_short=data["too_short"],
            stoplisted=data["stoplisted"],
            unsearchable=data["unsearchable"],
        )
        profiles = Profiles(data["profiles"], fold)
        names = PlaceNames(
            list(data["fingerprint"]),
            data["places"],
            table,
            profiles,
            {k: list(v) for k, v in data["exonyms"].items()},
            data["automaton"],
        )
    except (OSError, EOFError, ValueError, TypeError, KeyError):
        return None
    os.utime(path)  # recently used: kept when older tables are dropped
    return names


def write_cache(path: Path, names: PlaceNames) -> None:
    """Save the names at `path` (whole or not at all), keeping the CACHE_KEEP most recently used files."""
    table = names.table
    data = {
        "fingerprint": names.fingerprint,
        "places": names.places,
        "targets": table.targets,
        "too_short": table.too_short,
        "stoplisted": table.stoplisted,
        "unsearchable": table.unsearchable,
        "profiles": names.profiles.raw,
        "exonyms": names.exonyms,
        "automaton": names.automaton,
    }
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_suffix(f".{os.getpid()}.partial")
        partial.write_bytes(marshal.dumps(data))
        os.replace(partial, path)  # readers see the whole file or none
        older = sorted(path.parent.glob("place-names-*.marshal"), key=lambda p: p.stat().st_mtime, reverse=True)
        for stale in older[CACHE_KEEP:]:
            stale.unlink(missing_ok=True)
    except OSError:
        pass  # a cache that cannot be written only costs time
