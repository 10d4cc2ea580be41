"""What the online linking adds to a bulk export, computed from its Parquet files alone.

`graphrag load` + `graphrag link phrases` write more than documents and chunks: each chunk's
lower-case words and clause leads (`lowerWords`, `LEADS` to `:Word`), every candidate phrase as
a `:Term` (`:Phrase` when 2..max chunks share it) with `HAS_PHRASE` / `HAS_TERM` pairs, the phrase
state, and the documents' authors as people (`AUTHORED`). `derive` computes all of it from
chunks/ and documents/ (the base Parquet contract, whoever wrote it: `graphrag export` or a
Spark job) with the linkers' own functions (`linkers.phrases.extract_phrases` / `chunk_words`,
`store.authors.authored_rows`), so `graphrag import` writes it with the importer and runs no
linking online. The files it writes::

    derived.json                           what was derived from which files, with which bounds
    chunk_words/FFF/part-NNNNN.parquet     id, lowerWords: row for row the chunk files of folder FFF
    words/ terms/ persons/ phrase_state/   nodes: id, __labels, then one column a property
    leads/ has_phrase/ has_term/ authored/ relationships: start, end, then properties

Memory holds the vocabulary, the terms and the authors (as the online full run does), never
the texts: chunks are streamed twice, and each chunk's phrases wait in a spill file until every
term's count is known.
"""

from __future__ import annotations

import json
import marshal
import os
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from datetime import UTC, datetime
from pathlib import Path

from graphrag_cypher.store import bulk

VERSION = 1  # of what `derive` writes: a folder derived by another version is derived again
INFO = "derived.json"
KINDS = ("chunk_words", *bulk.DERIVED_NODES, *bulk.DERIVED_RELATIONSHIPS)


def _signature(folders: list[Path]) -> list[list]:
    """The base files derived from (name, size): a chunks/ rewritten by another engine changes it."""
    found = []
    for number, folder in enumerate(folders):
        for kind in ("documents", "chunks", "from_document"):
            for path in bulk.parquet_files(folder, kind):
                found.append([number, str(path.relative_to(folder)), path.stat().st_size])
    return found


def read_info(derived: Path) -> dict | None:
    try:
        return json.loads((Path(derived) / INFO).read_text())
    except (OSError, ValueError):
        return None


def is_current(derived: Path, folders: list[Path], max_chunks: int, min_length: int) -> bool:
    """Whether `derived` holds what `derive(folders, ...)` would write now."""
    info = read_info(derived)
    return bool(
        info
        and info.get("version") == VERSION
        and info.get("from") == _signature([Path(f) for f in folders])
        and info.get("phrases", {}).get("maxChunks") == max_chunks
        and info.get("phrases", {}).get("minLength") == min_length
    )


def _titles_of_untitled(folder: Path, untitled: set[str]) -> dict[str, str]:
    """Chunk id → its document's title for chunks with no title of their own (the linker reads
    coalesce(chunk title, document title))."""
    if not untitled:
        return {}
    doc_of: dict[str, str] = {}
    for path in bulk.parquet_files(folder, "from_document"):
        for batch in bulk._batches(path, ["start", "end"]):
            for start, end in zip(batch.column("start").to_pylist(), batch.column("end").to_pylist(), strict=True):
                if start in untitled:
                    doc_of[start] = end
    titles: dict[str, str] = {}
    wanted = set(doc_of.values())
    for path in bulk.parquet_files(folder, "documents"):
        if "title" not in bulk._pa()[1].read_schema(path).names:
            continue
        for batch in bulk._batches(path, ["id", "title"]):
            for doc, title in zip(batch.column("id").to_pylist(), batch.column("title").to_pylist(), strict=True):
                if doc in wanted and title:
                    titles[doc] = title
    return {chunk: titles[doc] for chunk, doc in doc_of.items() if doc in titles}


def _chunk_rows(path: Path, fallback: dict[str, str]) -> Iterator[list[tuple[str, str]]]:
    """(id, phrase text) of each chunk of one chunks/ file, a record batch at a time, in file order."""
    from graphrag_cypher.linkers.phrases import chunk_text

    _, pq = bulk._pa()
    names = pq.read_schema(path).names
    columns = ["id", "text"] + (["title"] if "title" in names else [])
    for batch in bulk._batches(path, columns):
        ids = batch.column("id").to_pylist()
        texts = batch.column("text").to_pylist()
        titles = batch.column("title").to_pylist() if "title" in names else [None] * len(ids)
        yield [
            (cid, chunk_text({"title": title or fallback.get(cid), "text": text}))
            for cid, text, title in zip(ids, texts, titles, strict=True)
        ]


def derive(
    folders: Iterable[Path],
    out: Path,
    *,
    max_chunks: int | None = None,
    min_length: int | None = None,
    on_progress: Callable[[str], None] = lambda line: None,
) -> dict:
    """Write to `out` the phrase graph and the authors that `graphrag link phrases` (a full run)
    and the online loader would write for the chunks and documents of `folders` (imported
    together), reading only their chunks/, documents/ (and from_document/ for a chunk with no
    title). Returns what derived.json records, with the counts and seconds."""
    from graphrag_cypher.linkers.phrases import MAX_CHUNKS, MIN_LENGTH
    from graphrag_cypher.linkers.phrases import VERSION as PHRASE_VERSION

    folders = [Path(f) for f in folders]
    max_chunks, min_length = max_chunks or MAX_CHUNKS, min_length or MIN_LENGTH
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    _clear(out)
    started = time.perf_counter()
    pa, pq = bulk._pa()
    seconds: dict[str, float] = {}
    counts: dict[str, int] = {}

    def lap(name: str, since: float) -> float:
        now = time.perf_counter()
        seconds[name] = round(now - since, 2)
        return now

    # 1. each chunk's words and leads (its own), the vocabulary and every lead (all chunks)
    from graphrag_cypher.linkers.phrases import _spilled, chunk_words, extract_phrases

    vocabulary: Counter[str] = Counter()
    lead_words: set[str] = set()
    leads = bulk._Parts(out, "leads")
    sources: list[tuple[Path, dict[str, str]]] = []  # chunk file, titles of its untitled chunks
    chunks = 0
    clock = time.perf_counter()
    for number, folder in enumerate(folders):
        fallback = _titles_of_untitled(folder, _untitled(folder))
        for index, path in enumerate(bulk.parquet_files(folder, "chunks")):
            sources.append((path, fallback))
            target = out / "chunk_words" / f"{number:03d}" / f"part-{index:05d}.parquet"
            target.parent.mkdir(parents=True, exist_ok=True)
            # one file per chunks/ file, row for row, however many rows it holds
            with pq.ParquetWriter(target, bulk.words_schema(), compression="zstd") as words_of:
                for rows in _chunk_rows(path, fallback):
                    ids, lowers, starts, ends = [], [], [], []
                    for cid, text in rows:
                        lower, chunk_leads = chunk_words(text)
                        vocabulary.update(lower)
                        lead_words.update(chunk_leads)
                        ids.append(cid)
                        lowers.append(" ".join(lower))
                        starts += [cid] * len(chunk_leads)
                        ends += chunk_leads
                    words_of.write_table(pa.table({"id": ids, "lowerWords": lowers}, schema=bulk.words_schema()))
                    if starts:
                        leads.write(pa.table({"start": starts, "end": ends}))
                    chunks += len(rows)
                    on_progress(f"derive: words of {chunks:,} chunks")
    leads.close()
    counts["chunks"] = chunks
    clock = lap("words", clock)

    # 2. each chunk's terms with the whole vocabulary (spilled), the terms' counts and names
    common = frozenset(vocabulary)
    df: Counter[str] = Counter()
    names: dict[str, tuple[str, str]] = {}  # folded → (first spelling, its chunk): the smallest chunk id's
    with tempfile.TemporaryFile(dir=out) as spill:
        for path, fallback in sources:
            for rows in _chunk_rows(path, fallback):
                per = []
                for cid, text in rows:
                    found = extract_phrases(text, common, min_length)
                    df.update(found.keys())
                    for key, surface in found.items():
                        known = names.get(key)
                        if known is None or cid < known[1]:
                            names[key] = (surface, cid)
                    per.append((cid, found))
                marshal.dump(per, spill)
        clock = lap("phrases", clock)

        # 3. the nodes: words (lower-case count, or 0 for a lead only), terms, the phrase state
        parts = bulk._Parts(out, "words")
        keys = sorted(vocabulary.keys() | lead_words)
        for start in range(0, len(keys), bulk.ROWS_PER_GROUP):
            part = keys[start : start + bulk.ROWS_PER_GROUP]
            written = [vocabulary.get(w, 0) for w in part]  # chunks writing it in lower case
            parts.write(pa.table({"id": part, "lower": written, "known": [n > 0 for n in written]}))
        parts.close()
        counts["words"] = len(keys)
        del keys, vocabulary, lead_words, common
        parts = bulk._Parts(out, "terms")
        keys = sorted(df)
        for start in range(0, len(keys), bulk.ROWS_PER_GROUP):
            part = keys[start : start + bulk.ROWS_PER_GROUP]
            phrase = [2 <= df[k] <= max_chunks for k in part]
            parts.write(
                pa.table(
                    {
                        "id": part,
                        bulk.LABELS_COLUMN: [["Term", "Phrase"] if p else ["Term"] for p in phrase],
                        "name": [names[k][0] for k in part],
                        "chunks": [df[k] for k in part],
                        "nameChunk": [names[k][1] for k in part],
                    }
                )
            )
        parts.close()
        counts["terms"] = len(keys)
        counts["phrases"] = sum(1 for n in df.values() if 2 <= n <= max_chunks)
        del keys, names
        at = datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
        state = bulk._Parts(out, "phrase_state")
        state.write(
            pa.table(
                {
                    "id": ["phrases"],
                    bulk.LABELS_COLUMN: [["__PhraseState"]],
                    "version": [PHRASE_VERSION],
                    "maxChunks": [max_chunks],
                    "minLength": [min_length],
                    "at": [at],
                }
            )
        )
        state.close()

        # 4. the chunk–term pairs: a link where 2..max chunks share the term, else a plain pair
        links, pairs = bulk._Parts(out, "has_phrase"), bulk._Parts(out, "has_term")
        counts["has_phrase"] = counts["has_term"] = 0
        for per in _spilled(spill):
            found_pairs: dict[bool, tuple[list, list, list]] = {True: ([], [], []), False: ([], [], [])}
            for cid, found in per:
                for key, surface in found.items():
                    columns = found_pairs[2 <= df[key] <= max_chunks]
                    columns[0].append(cid)
                    columns[1].append(key)
                    columns[2].append(surface)
            for link, kind, name in ((True, links, "has_phrase"), (False, pairs, "has_term")):
                starts, ends, surfaces = found_pairs[link]
                if starts:
                    kind.write(pa.table({"start": starts, "end": ends, "surface": surfaces}))
                    counts[name] += len(starts)
        links.close()
        pairs.close()
    clock = lap("pairs", clock)

    # 5. the documents' authors as people, as the loader writes them
    counts.update(_authors(folders, out, at))
    lap("authors", clock)
    info = {
        "version": VERSION,
        "from": _signature(folders),
        "phrases": {"version": PHRASE_VERSION, "maxChunks": max_chunks, "minLength": min_length},
        "counts": counts,
        "seconds": {**seconds, "total": round(time.perf_counter() - started, 2)},
    }
    (out / INFO).write_text(json.dumps(info, indent=2) + "\n")
    return info


def _untitled(folder: Path) -> set[str]:
    """Ids of chunks with no title (none, in what `graphrag export` writes)."""
    import pyarrow.compute as pc

    _, pq = bulk._pa()
    found: set[str] = set()
    for path in bulk.parquet_files(folder, "chunks"):
        if "title" not in pq.read_schema(path).names:
            for batch in bulk._batches(path, ["id"]):
                found.update(batch.column("id").to_pylist())
            continue
        for batch in bulk._batches(path, ["id", "title"]):
            missing = pc.is_null(batch.column("title"))
            if pc.any(missing).as_py():
                found.update(pc.filter(batch.column("id"), missing).to_pylist())
    return found


def _authors(folders: list[Path], out: Path, at: str) -> dict[str, int]:
    """persons/ and authored/: each document's `authors` as the online loader resolves them."""
    from graphrag_cypher.store.authors import authored_rows

    pa, pq = bulk._pa()
    docs: list[dict] = []
    for folder in folders:
        for path in bulk.parquet_files(folder, "documents"):
            if "authors" not in pq.read_schema(path).names:
                continue
            for batch in bulk._batches(path, ["id", "authors"]):
                for doc, authors in zip(
                    batch.column("id").to_pylist(), batch.column("authors").to_pylist(), strict=True
                ):
                    if authors:
                        docs.append({"id": doc, "authors": authors})
    docs.sort(key=lambda d: d["id"])
    persons: dict[str, dict] = {}
    starts, ends = [], []
    for row in authored_rows([], docs):
        for person in row["persons"]:
            persons.setdefault(person["id"], person)
            starts.append(person["id"])
            ends.append(row["id"])
    if persons:
        rows = [persons[k] for k in sorted(persons)]
        parts = bulk._Parts(out, "persons")
        parts.write(
            pa.table(
                {
                    "id": [p["id"] for p in rows],
                    bulk.LABELS_COLUMN: [["__Entity__", "Person"]] * len(rows),
                    "name": [p["name"] for p in rows],
                    "normName": [p["normName"] for p in rows],
                    "type": ["Person"] * len(rows),
                    "scope": ["global"] * len(rows),
                    "canonical": [True] * len(rows),
                    "source": ["metadata"] * len(rows),
                }
            )
        )
        parts.close()
        parts = bulk._Parts(out, "authored")
        parts.write(
            pa.table({"start": starts, "end": ends, "source": ["metadata"] * len(starts), "at": [at] * len(starts)})
        )
        parts.close()
    return {"persons": len(persons), "authored": len(starts)}


def _clear(out: Path) -> None:
    import shutil

    for kind in KINDS:
        shutil.rmtree(out / kind, ignore_errors=True)
    (out / INFO).unlink(missing_ok=True)


def derive_export(folder: Path, stats=None) -> dict:
    """Derive what linking adds for one export folder (into its derived/) and say so in its
    manifest; `stats` (bulk.ExportStats) gets the seconds. `graphrag export` runs it at its end."""
    started = time.perf_counter()
    folder = Path(folder)
    info = derive([folder], folder / bulk.DERIVED)
    manifest = json.loads((folder / bulk.MANIFEST).read_text())
    manifest["derived"] = {"folder": bulk.DERIVED, "counts": info["counts"], "phrases": info["phrases"]}
    (folder / bulk.MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n")
    if stats is not None:
        stats.derive_seconds = time.perf_counter() - started
        stats.seconds += stats.derive_seconds
    return info


def derived_for(folders: list[Path], staging: Path, on_progress: Callable[[str], None] = lambda line: None) -> Path:
    """Where the derived files of `folders` (imported together) are: one folder's own, written by
    `graphrag export` and still current; else derived now, into that folder when it is the only
    one and writable (the next import reads them), or into `staging`."""
    from graphrag_cypher.linkers.phrases import MAX_CHUNKS, MIN_LENGTH

    folders = [Path(f) for f in folders]
    if len(folders) == 1:
        own = folders[0] / bulk.DERIVED
        if is_current(own, folders, MAX_CHUNKS, MIN_LENGTH):
            return own
        if os.access(folders[0], os.W_OK):
            derive(folders, own, on_progress=on_progress)
            return own
    target = Path(staging) / "derived"
    derive(folders, target, on_progress=on_progress)
    return target
