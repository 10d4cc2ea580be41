"""Which of graphrag's own stored procedures this Neo4j has, and the path each capability takes.

The plugin jar (`procedures/graphrag-procedures`, loaded from Neo4j's `plugins/`) does the
heavy work inside the database: place matching, weighted personalised PageRank, graph
retrieval, the name fold. A Neo4j without it (Aura, a plain Docker image) runs the same
capabilities through Cypher files and Python; :func:`paths` says which one is in use.
"""

from __future__ import annotations

from typing import Any

PROCEDURES = {
    "link places": "graphrag.link.places",
    "ppr": "graphrag.ppr",
    "graph mode": "graphrag.retrieve.graph",
    "graph neighbours": "graphrag.retrieve.neighbours",
}
FUNCTIONS = {"name fold": "graphrag.normName"}
FALLBACK = {
    "link places": "python (fast engine: Aho–Corasick over the texts read through Bolt)",
    "ppr": "python (weighted PageRank over the subgraph read by retrieval/ppr_subgraph.cypher)",
    "graph mode": "cypher (retrieval/hybrid, entity_chunks, seed_neighbours.cypher) + python placing",
    "graph neighbours": "cypher (retrieval/seed_neighbours.cypher)",
    "name fold": "cypher + APOC",
}


def installed(graph: Any) -> dict:
    """{"version": plugin version or None, "names": the graphrag.* procedures and functions};
    read once per connection."""
    cached = getattr(graph, "_graphrag_plugin", None)
    if cached is None:
        names = set(graph.read_row("plugin/installed")["names"]) | set(graph.read_row("plugin/functions")["names"])
        version = graph.read_row("plugin/version")["version"] if "graphrag.version" in names else None
        cached = {"version": version, "names": sorted(names)}
        graph._graphrag_plugin = cached
    return cached


# Config keys this package sends that a plugin built before them refuses: without them, a question
# that needs one takes the Cypher path (retrieval/procedures.py), and doctor says the plugin is stale.
NEEDED_KEYS = {"graphrag.retrieve.graph": ("corpora",), "graphrag.retrieve.neighbours": ("corpora",)}


def accepts(graph: Any, procedure: str, key: str) -> bool:
    """Whether the installed `procedure` takes config `key`; False for a plugin too old to say
    (built before graphrag.configKeys). Read once per connection and procedure."""
    if "graphrag.configKeys" not in installed(graph)["names"]:
        return False
    cache = getattr(graph, "_graphrag_config_keys", None)
    if cache is None:
        cache = graph._graphrag_config_keys = {}
    if procedure not in cache:
        cache[procedure] = set(graph.read_row("plugin/config_keys", procedure=procedure)["keys"] or [])
    return key in cache[procedure]


def stale(graph: Any) -> list[str]:
    """ "procedure: key" for each config key this package needs that the installed plugin lacks
    (empty with no plugin, or one as new as the package)."""
    return [
        f"{procedure}: {key}"
        for procedure, keys in NEEDED_KEYS.items()
        if has(graph, procedure)
        for key in keys
        if not accepts(graph, procedure, key)
    ]


def has(graph: Any, name: str) -> bool:
    """Whether the procedure or function `name` (e.g. "graphrag.ppr") is installed."""
    return name in installed(graph)["names"]


def paths(graph: Any) -> dict[str, str]:
    """Capability → "procedure graphrag.…" or the Cypher/Python path used without the plugin."""
    out = {}
    for capability, name in {**PROCEDURES, **FUNCTIONS}.items():
        out[capability] = f"procedure {name}" if has(graph, name) else FALLBACK[capability]
    return out


def embedding(graph: Any) -> dict:
    """{"works": bool, "detail": str}: whether `graphrag.embed` (and so `graphrag.search`, a
    question retrieved in Neo4j Browser with no Python) works here; the first call loads the model."""
    if not has(graph, "graphrag.embed"):
        return {"works": False, "detail": "not in this plugin (questions are embedded in Python)"}
    try:
        dimensions = graph.read_row("plugin/embed_check")["dimensions"]
    except Exception as exc:  # the server's reason, as one line: a missing model or library
        message = getattr(exc, "message", None) or str(exc)
        return {"works": False, "detail": " ".join(message.split())[:300]}
    return {
        "works": True,
        "detail": f"graphrag.embed ({dimensions} dimensions, ONNX Runtime in Neo4j): graphrag.search works in Browser",
    }
