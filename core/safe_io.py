"""Reading data files that may be hostile: bounded decompression, bounded lines, shallow JSON.

Every loader that opens a data file goes through here, so a decompression bomb, a line of a
gigabyte, bytes that are not UTF-8 or JSON nested a million levels deep become one
`ContentError` (a one-line error for that file or line) instead of gigabytes of memory or a
traceback:

- `.gz` and `.bz2` files are decompressed as a stream, and the stream is refused once it has
  produced more than `MAX_RATIO` times the compressed bytes read (past the first
  `RATIO_GRACE_BYTES`: real gazetteers and wiki exports expand 3-10 times, a bomb a
  thousand) or more than `max_bytes`; a `.gz` that is not gzip, or a truncated one, is
  refused with what is wrong;
- `iter_lines` reads at most `MAX_LINE_BYTES` of a line (the rest of a longer line is
  skipped, not held) and decodes each line on its own, so one bad line is one error;
- `read_json` refuses a document over `MAX_JSON_BYTES` before parsing it, and `loads_json`
  turns the parser's RecursionError on deep nesting into a ContentError.
"""

from __future__ import annotations

import bz2
import gzip
import io
import json
import os
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from .model import ContentError

MAX_RATIO = 100
RATIO_GRACE_BYTES = 32 * 1024 * 1024
MAX_LINE_BYTES = 16 * 1024 * 1024
MAX_JSON_BYTES = 512 * 1024 * 1024
_STEP = 1 << 20
_MAGIC = {".gz": (b"\x1f\x8b", "gzip"), ".bz2": (b"BZh", "bzip2")}


def _mb(n: int) -> str:
    return f"{n / 1e6:,.0f} MB" if n >= 1e6 else f"{n / 1e3:,.0f} KB"


class _Counting(io.RawIOBase):
    """The compressed file, counting the bytes the decompressor has taken from it."""

    def __init__(self, raw: io.BufferedIOBase):
        self.raw, self.count = raw, 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        n = self.raw.readinto(buffer)
        self.count += n or 0
        return n

    def close(self) -> None:
        self.raw.close()
        super().close()


class _Bounded(io.RawIOBase):
    """Decompressed bytes, refused past the ratio or size cap; decoder errors as ContentError."""

    def __init__(self, stream, compressed: _Counting | None, kind: str | None, max_bytes: int | None, max_ratio: float):
        self.stream, self.compressed, self.kind = stream, compressed, kind
        self.max_bytes, self.max_ratio, self.total = max_bytes, max_ratio, 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        try:  # at most a megabyte at a time, so the caps are checked before memory is spent
            n = self.stream.readinto(memoryview(buffer)[:_STEP])
        except (OSError, EOFError, zlib.error, ValueError) as exc:
            if self.kind is None:
                raise
            raise ContentError(f"corrupt {self.kind} data after {_mb(self.total)}: {exc}") from None
        self.total += n or 0
        if self.max_bytes is not None and self.total > self.max_bytes:
            raise ContentError(f"more than {_mb(self.max_bytes)} of data, refused")
        if (
            self.compressed is not None
            and self.total > RATIO_GRACE_BYTES
            and self.total > self.max_ratio * max(self.compressed.count, 1)
        ):
            raise ContentError(
                f"{self.kind} data expands more than {self.max_ratio:g} times "
                f"({_mb(self.total)} from {_mb(self.compressed.count)}): refused as a "
                "decompression bomb"
            )
        return n

    def close(self) -> None:
        self.stream.close()
        super().close()


def open_bytes(path: str | os.PathLike, max_bytes: int | None = None, max_ratio: float = MAX_RATIO) -> BinaryIO:
    """The file's bytes (decompressed for `.gz` and `.bz2`), within the caps above.

    Raises ContentError for a file whose first bytes are not what its suffix says; the caps
    and corrupt data raise ContentError while reading."""
    path = Path(path)
    suffix = path.suffix.lower()
    raw = path.open("rb")
    if suffix not in _MAGIC:
        return io.BufferedReader(_Bounded(raw, None, None, max_bytes, max_ratio), 1 << 16)
    magic, kind = _MAGIC[suffix]
    head = raw.read(len(magic))
    raw.seek(0)
    if head != magic:
        raw.close()
        raise ContentError(f"not {kind}-compressed, though the name ends in {suffix}")
    counting = _Counting(raw)
    stream = gzip.GzipFile(fileobj=counting, mode="rb") if kind == "gzip" else bz2.BZ2File(counting, "rb")
    return io.BufferedReader(_Bounded(stream, counting, kind, max_bytes, max_ratio), 1 << 16)


def iter_lines(
    handle: BinaryIO, max_line: int = MAX_LINE_BYTES, errors: str = "strict"
) -> Iterator[tuple[int, str | ContentError]]:
    """(line number, text) per line, or (line number, ContentError) for a line too long or not
    UTF-8; a BOM on the first line is dropped. Caps of the stream itself raise ContentError."""
    number = 0
    while True:
        line = handle.readline(max_line + 1)
        if not line:
            return
        number += 1
        if len(line) > max_line:
            while line and not line.endswith(b"\n"):  # skip the rest, a chunk at a time
                line = handle.readline(1 << 20)
            yield number, ContentError(f"line longer than {_mb(max_line)}, skipped")
            continue
        try:
            yield number, line.decode("utf-8-sig" if number == 1 else "utf-8", errors=errors)
        except UnicodeDecodeError as exc:
            yield number, ContentError(f"invalid UTF-8 at byte {exc.start} of the line, skipped")


def loads_json(data: str | bytes):
    """json.loads, with nesting too deep for the parser as a ContentError (a ValueError)."""
    try:
        return json.loads(data)
    except RecursionError:
        raise ContentError("JSON nested too deeply (over about 1,000 levels), refused") from None


def read_json(path: str | os.PathLike, max_bytes: int = MAX_JSON_BYTES):
    """A whole JSON document (`.gz`/`.bz2` too) within the caps; every problem with the content
    is a ContentError with a one-line reason (OSError for a file that cannot be read)."""
    with open_bytes(path) as handle:
        data = handle.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise ContentError(f"JSON document larger than {_mb(max_bytes)}, refused")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ContentError(f"invalid UTF-8 at byte offset {exc.start}") from None
    try:
        return loads_json(text)
    except json.JSONDecodeError as exc:
        raise ContentError(f"invalid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})") from None
