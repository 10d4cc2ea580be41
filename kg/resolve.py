"""Entity resolution: fuzzy duplicates of one type within one scope are merged.

Exact matches need no step here: ids are built from normalised names (case, accents and
punctuation folded), so within a scope they meet on MERGE, and story-local entities are
joined to their canonical entity by INSTANCE_OF when extracted. This pass finds the rest
with rapidfuzz: pairs of the same schema, type and scope (the same story for story-local
entities) whose normalised names score at least the threshold. The entity with more
relationships is kept; the other's relationships move to it and its names become aliases.

Then names that are another entity's short form: a name that is an alias of one entity of
its type and scope ("Jon", an alias of "Jon Snow"), or, for the schema's ``prefix_types``,
the first words of one longer name ("Jon" of "Jon Snow"), merges into it. Scope is the
schema's (the story for story-local entities) and the corpus: the two must share a corpus of
the documents that describe or mention them. Only when the longer entity is the only one:
"Jon" beside "Jon Snow" and "Jon Connington" stays, and is reported as ambiguous. An entity
with a page or record of its own is never the short form.
"""

from __future__ import annotations

import re
from collections import defaultdict

from .names import norm_name

_DIGITS = re.compile(r"\d+")


def similarity(a: str, b: str) -> float:
    """Name similarity (0-100) of two normalised names, strict where names differ by meaning.

    Numbers must agree ("Musician 1" is not "Musician 2"); names with the same number of
    words are only as similar as their least similar word ("Tyrion Lannister" is not
    "Tywin Lannister"); otherwise the names are compared without spaces ("dawn fang").
    """
    from rapidfuzz import fuzz

    if _DIGITS.findall(a) != _DIGITS.findall(b):
        return 0.0
    ta, tb = a.split(), b.split()
    if len(ta) == len(tb):
        return min(fuzz.ratio(x, y) for x, y in zip(ta, tb, strict=True))
    return fuzz.ratio(a.replace(" ", ""), b.replace(" ", ""))


def candidates(entities: list[dict], threshold: int) -> list[dict]:
    from rapidfuzz import fuzz, process

    groups: dict[tuple, list[dict]] = defaultdict(list)
    for e in entities:
        scope = e["storyId"] if e["scope"] == "story" else "global"
        groups[(e.get("schema"), e["type"], scope)].append(e)
    pairs = []
    for (schema, type_name, _), members in groups.items():
        if len(members) < 2:
            continue
        names = [m["normName"] for m in members]
        # a cheap whole-name prefilter, then the strict score on the few pairs left
        matrix = process.cdist(names, names, scorer=fuzz.ratio, score_cutoff=max(0, threshold - 15))
        for i in range(len(members)):
            for j in range(i + 1, len(members)):
                if not matrix[i][j]:
                    continue
                score = similarity(names[i], names[j])
                if score >= threshold:
                    a, b = members[i], members[j]
                    keep, merge = (a, b) if (a["degree"], -len(a["id"])) >= (b["degree"], -len(b["id"])) else (b, a)
                    pairs.append(
                        {
                            "type": type_name,
                            "schema": schema,
                            "score": round(score, 1),
                            "rule": "fuzzy",
                            "keep": {"id": keep["id"], "name": keep["name"]},
                            "merge": {"id": merge["id"], "name": merge["name"]},
                        }
                    )
    return sorted(pairs, key=lambda p: (-p["score"], p["keep"]["id"]))


_DESCRIBED = {"infobox", "page", "mapping"}


def short_forms(entities: list[dict], prefix_types: dict[str | None, set[str]]) -> tuple[list[dict], list[dict]]:
    """Pairs (short name -> the one entity it is an alias or prefix of) and the ambiguous names."""
    groups: dict[tuple, list[dict]] = defaultdict(list)
    for e in entities:
        scope = e["storyId"] if e["scope"] == "story" else "global"
        groups[(e.get("schema"), e["type"], scope)].append(e)
    pairs, ambiguous = [], []
    for (schema, type_name, _), members in groups.items():
        if len(members) < 2:
            continue
        by_alias: dict[str, list[dict]] = defaultdict(list)
        for m in members:
            for alias in {norm_name(a) for a in m.get("aliases") or []} - {m["normName"]}:
                by_alias[alias].append(m)
        prefixes = type_name in prefix_types.get(schema, set())
        for short in members:
            if short.get("typedBy") in _DESCRIBED:
                continue
            name = short["normName"]
            found = {m["id"]: (m, "alias") for m in by_alias.get(name, []) if m["id"] != short["id"]}
            if prefixes and not found:
                found = {
                    m["id"]: (m, "prefix")
                    for m in members
                    if m["id"] != short["id"] and m["normName"].startswith(name + " ")
                }
            corpora = set(short.get("corpora") or [])  # none: no document names it, no scope to share
            found = {k: v for k, v in found.items() if corpora & set(v[0].get("corpora") or [])}
            if len(found) == 1:
                (long, rule), *_ = found.values()
                pairs.append(
                    {
                        "type": type_name,
                        "schema": schema,
                        "score": 100.0,
                        "rule": rule,
                        "keep": {"id": long["id"], "name": long["name"]},
                        "merge": {"id": short["id"], "name": short["name"]},
                    }
                )
            elif found:
                names = sorted(m["name"] for m, _ in found.values())
                ambiguous.append({"type": type_name, "schema": schema, "name": short["name"], "candidates": names})
    pairs.sort(key=lambda p: (p["type"], p["merge"]["name"]))
    ambiguous.sort(key=lambda a: (a["type"], a["name"]))
    return pairs, ambiguous


def prefix_types_of(graph, names: set) -> dict[str | None, set[str]]:
    """Each schema's `resolve: prefix_types`, from the file its extraction recorded or the built-in one."""
    from ..schema import SchemaError, load_schema

    paths = {row["name"]: row["path"] for row in graph.read("structured/schemas")}
    found: dict[str | None, set[str]] = {}
    for name in names:
        for where in (paths.get(name), name):
            if not where:
                continue
            try:
                schema = load_schema(where)
            except SchemaError:
                continue
            if schema.name == name:
                found[name] = set(schema.prefix_types)
                break
    return found


def merge_rows(pairs: list[dict]) -> list[dict]:
    """One row per merged entity, each pointing at the final survivor (chains collapse)."""
    parent: dict[str, str] = {}

    def root(x: str) -> str:
        while x in parent:
            x = parent[x]
        return x

    for pair in pairs:
        keep, merge = root(pair["keep"]["id"]), root(pair["merge"]["id"])
        if keep != merge:
            parent[merge] = keep
    return [{"keep": root(m), "merge": m} for m in parent]


def run(graph, schema: str | None = None, threshold: int = 90, dry_run: bool = False) -> dict:
    entities = graph.read("kg/resolve_entities", schema=schema)
    pairs = candidates(entities, threshold)
    short, ambiguous = short_forms(entities, prefix_types_of(graph, {e["schema"] for e in entities}))
    fuzzy = {p["merge"]["id"] for p in pairs} | {p["keep"]["id"] for p in pairs}
    pairs += [p for p in short if p["merge"]["id"] not in fuzzy]
    merged = 0
    if pairs and not dry_run:
        rows = merge_rows(pairs)
        for start in range(0, len(rows), 200):
            merged += graph.write("kg/merge_entity_pairs", rows=rows[start : start + 200])[0]["merged"]
    elif dry_run:
        merged = len(merge_rows(pairs))
    return {
        "entities": len(entities),
        "threshold": threshold,
        "dryRun": dry_run,
        "candidates": pairs,
        "merged": merged,
        "shortForms": sum(p["rule"] != "fuzzy" for p in pairs),
        "ambiguous": ambiguous,
    }
