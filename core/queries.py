"""Named Cypher statements shipped as package data under `cypher/queries/`.

One statement per file, e.g. `cypher/queries/admin/components.cypher`, loaded as
``query("admin/components")``. The header comment names the file's `$params` and what
it returns; :func:`params_of` reads it so callers can be checked against it.
"""

from __future__ import annotations

import re
from functools import cache
from importlib import resources

from .errors import GraphragError

_PARAM_LINE = re.compile(r"^//\s*params:\s*(.*)$", re.IGNORECASE | re.MULTILINE)


@cache
def query(name: str) -> str:
    """The text of `cypher/queries/<name>.cypher`."""
    path = resources.files("graphrag_cypher.cypher").joinpath("queries", *f"{name}.cypher".split("/"))
    if not path.is_file():
        raise GraphragError(f"no Cypher query named {name!r} (expected cypher/queries/{name}.cypher)")
    return path.read_text(encoding="utf-8")


def params_of(name: str) -> set[str]:
    """The `$params` named in the query's `// params:` header line."""
    match = _PARAM_LINE.search(query(name))
    if not match or match.group(1).strip().lower() in {"", "none", "-"}:
        return set()
    return {p.strip().lstrip("$") for p in re.split(r"[,\s]+", match.group(1)) if p.strip().startswith("$")}
