"""One decision per mention: which record a name means here, how sure, and why.

A mention is one occurrence of a name (outside not-a-place contexts) in a chunk; its
candidates are every record carrying that name. Each candidate gets a score from evidence
that can be read back:

* **the record** (:class:`Profile`): a described, located record (+1.0, up to +0.5 more for
  a well-known place with many names) over a record without a description (+0.5), a
  Barrington Atlas citation stub ("An ancient place, cited: BAtlas …") or an unlocated one
  (0), or a withdrawn or deprecated one (−2); no coordinates −0.4; the mention is the
  record's own title +0.5, or an English name the exonym list gives it (``Egypt`` → Ancient
  Egypt) +0.5, and so is a stub's name of several words ("Hermopolite nome"); a stub's name
  of four letters or fewer ("Lab") −0.5;
* **the words around** (:func:`.contexts.kind_cues`): the kind they ask for ("the province
  of", "the island of", "on", "the port of") +1.5 to records of that kind; a qualifier
  ("Antioch in Pisidia", "Pisidian Antioch": another gazetteer name, not only a country of
  today) +1.5 to records that say it, −3 to the others (where none of the name's records says
  it, those of its longer Greek or Latin form that do are candidates too: Antiochia, "an
  ancient city in Pisidia"; :func:`.places.qualified_forms`); "modern" +1.5 to
  modern records (GeoNames countries and continents), "ancient", "Roman" −1.5 to them; a
  modern record is otherwise +1.2 (an English country or continent name means that one),
  unless an exonym or a described ancient record of that very title competes (0);
* **one sense per document**: where a kind cue or a qualifier decides a name somewhere in the
  document ("the provinces of Asia"), its other mentions there without such words lean the
  same way, +1.5;
* **the other places of the document**: a candidate that is itself named unambiguously in
  the document +1.0; among located candidates, the one nearest to the document's
  unambiguous places (the median distance to them and to the chunk's own, averaged) gains,
  the others lose up to 2 by how much farther they are (−log2 of the ratio of distances); a
  lone stub more than 500 km from them −1.

The best candidate wins. Candidates within 10 km of it are the same place to a reader (a
town and its island), and so are the ancient areas of the best one's title when it is one
(a region and the provinces named after it: "Mauretania Tingitana", "Lusitania"); they add
to its weight; its ``confidence`` is that share of the softmax
over all candidates times how good the best record is on its own, and ``rule`` names the
evidence that decided (``unique-name``, ``exonym``, ``kind-cue``, ``modern-name``,
``qualifier``, ``document-sense``, ``context-document``, ``context-nearest``, ``record``).
Below the minimum confidence nothing is linked: the mention is counted as undecided. The
same function decides entities' shared names, with what they have (no points, no kinds).
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from collections.abc import Set as AbstractSet
from dataclasses import dataclass

from graphrag_cypher import lexicon

STUB = re.compile(r"^An ancient place, cited: BAtlas|precise location cannot be determined", re.I)
WITHDRAWN = re.compile(r"\b(?:withdrawn|duplicate|deprecated|untitled)\b", re.I)
_TITLE_PARTS = re.compile(r"\s*\([^()]*\)\s*")

# (kind, pattern on the title's bracket or the description's first words)
_KIND_PATTERNS = [
    ("diocese", re.compile(r"\bdiocese\b", re.I)),
    ("province", re.compile(r"\bprovinces?\b|\bsatrapy\b|\bconventus\b", re.I)),
    ("island", re.compile(r"\bisland\b|\bisle\b", re.I)),
    ("port", re.compile(r"\bport\b|\bharbou?r\b|\banchorage\b", re.I)),
    ("river", re.compile(r"\briver\b|\bstream\b", re.I)),
    ("mountain", re.compile(r"\bmountain\b|\bmount\b|\bpeak\b", re.I)),
    ("sanctuary", re.compile(r"\bsanctuary\b|\btemple\b", re.I)),
    ("region", re.compile(r"\bregion\b|\bkingdom\b|\bpeninsula\b|\bterritory\b|\bpeople\b", re.I)),
    ("settlement", re.compile(r"\bcity\b|\btown\b|\bsettlement\b|\bpolis\b|\bvillage\b|\bcolony\b", re.I)),
]
SAME_PLACE_KM = 10.0
FAR_KM = 500.0
SHORT_NAME = 4
DESCRIBED = 200  # characters of a description the decision reads
AREA_KINDS = lexicon.words("place_area_kinds")


@dataclass(frozen=True)
class Profile:
    """What the decision knows about one record."""

    kind: str | None = None  # see contexts.KINDS, or "country" / "continent"
    quality: float = 0.0  # described and located 1.0, stub 0, withdrawn −2 (no point: −0.4 more)
    point: tuple[float, float] | None = None
    titles: tuple[str, ...] = ()  # folded title parts ("Thebai/Thebae" → thebai, thebae)
    modern: bool = False
    about: str = ""  # folded title and first words of the description ("... located in Pisidia")


def profile(
    *, title: str | None, description: str | None, source: str | None, place_types, lat, lon, fold, names: int = 1
) -> Profile:
    """A place's profile from what the gazetteer says of it."""
    title, description = title or "", description or ""
    types = [t.lower() for t in (place_types or []) if isinstance(t, str)]
    point = (float(lat), float(lon)) if lat is not None and lon is not None else None
    modern = source == "geonames" and any(t in ("country", "continent") for t in types)
    kind: str | None
    if modern:
        kind = "continent" if "continent" in types else "country"
    else:
        bracket = " ".join(re.findall(r"\(([^()]*)\)", title))
        head = re.split(r"(?<=[.;])\s", description, maxsplit=1)[0][:160]
        kind = (
            next((k for k, p in _KIND_PATTERNS if p.search(bracket)), None)
            or _first_kind(head)
            or next((t for t in types if t in ("settlement", "island", "river", "mountain", "region", "port")), None)
        )
    if WITHDRAWN.search(title) or WITHDRAWN.search(description[:60]):
        quality = -2.0
    elif STUB.search(description):
        quality = 0.0
    elif not description and not modern:
        quality = 0.5  # a record without a description (one extracted from text): nothing for or against it
    else:
        quality = 1.0 + min(0.5, 0.1 * max(0, names - 1))  # a well-known place carries many names
    if point is None:
        quality -= 0.4
    titles = tuple(
        sorted({fold(part).strip(" ?*") for part in _TITLE_PARTS.sub(" ", title).split("/") if part.strip()})
    )
    about = fold(f"{title} {description[:DESCRIBED]}")
    return Profile(kind=kind, quality=quality, point=point, titles=titles, modern=modern, about=about)


def _first_kind(text: str) -> str | None:
    """The kind named first in a description: "A city founded ... in Kerman province" is a city."""
    found = [
        (m.start(), rank, kind)
        for rank, (kind, pattern) in enumerate(_KIND_PATTERNS)
        for m in [pattern.search(text)]
        if m
    ]
    return min(found)[2] if found else None


NO_PROFILE = Profile()


@dataclass
class Decision:
    target: str  # always one of the candidates (below the minimum confidence, the caller links nothing)
    confidence: float
    rule: str
    candidates: list[str]  # the alternatives, best first


def distance_km(a: tuple[float, float], b: tuple[float, float]) -> float:
    lat1, lon1, lat2, lon2 = map(math.radians, (*a, *b))
    h = math.sin((lat2 - lat1) / 2) ** 2 + math.cos(lat1) * math.cos(lat2) * math.sin((lon2 - lon1) / 2) ** 2
    return 2 * 6371.0 * math.asin(min(1.0, math.sqrt(h)))


def _sigmoid(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x))


def decide(
    key: str,
    candidates: tuple,
    profiles: dict,
    *,
    cues: set[str],
    exonyms: frozenset = frozenset(),
    known: set | frozenset = frozenset(),
    distance=None,
    qualifiers: AbstractSet[str] = frozenset(),
    sense: str | None = None,
) -> Decision:
    """The record `key` means, from its candidates' profiles, the kind cues around it, the
    records named unambiguously in the document (`known`) and `distance(target)`: how far a
    candidate lies from the document's other places (km, or None)."""
    scores: dict[str, float] = {}
    parts: dict[str, dict[str, float]] = {}
    distances: dict[str, float] = {}
    profs = {target: profiles.get(target) or NO_PROFILE for target in candidates}
    if len(candidates) > 1 and distance is not None:
        for target in candidates:
            prof = profs[target]
            if prof.point and prof.kind not in AREA_KINDS:
                found = distance(target)
                if found is not None:
                    distances[target] = found
    nearest = min(distances.values()) if len(distances) > 1 else None
    ancient_exonym = any(t in exonyms for t in candidates)  # "Egypt": the list prefers the ancient record
    # "Cyprus", "Asia": an ancient record described under this very name is as likely meant.
    ancient_title = any(not p.modern and p.quality >= 1.0 and key in p.titles for p in profs.values())
    for target in candidates:
        prof = profs[target]
        part = {"record": prof.quality}
        if key in prof.titles or (prof.quality < 1.0 and " " in key):
            # A stub named by a name of several words ("Hermopolite nome", "Monastery of
            # Epiphanius" for "Apa Epiphanius, Mon.") is as surely meant as by its title.
            part["record"] += 0.5
        if len(key) <= SHORT_NAME and prof.quality < 1.0:  # "Lab", "Mena": a short name of a stub is often a word
            part["record"] -= 0.5
        if target in exonyms:
            part["exonym"] = 0.5
        if prof.kind and prof.kind in cues:
            part["kind-cue"] = 1.5
        if prof.modern:
            part["modern-name"] = (
                1.5
                if "modern" in cues
                else -1.5
                if "ancient" in cues or "province" in cues
                else 0.0
                if ancient_exonym or ancient_title
                else 1.2
            )
        if qualifiers:  # "Antioch in Pisidia": the record should say Pisidia
            part["qualifier"] = 1.5 if any(q in prof.about for q in qualifiers) else -3.0
        if target == sense:  # what the same name means where the document's words say so
            part["document-sense"] = 1.5
        if len(candidates) > 1 and target in known:
            part["context-document"] = 1.0
        if nearest is not None and target in distances:
            part["context-nearest"] = -min(2.0, math.log2((distances[target] + 50) / (nearest + 50)))
        if len(candidates) == 1 and prof.quality < 1.0 and distance is not None and prof.point:
            # A lone citation stub far from every other place of the document is some other place.
            far = distance(target)
            if far is not None and far > FAR_KM:
                part["context-far"] = -1.0
        parts[target] = part
        scores[target] = sum(part.values())
    ranked = sorted(candidates, key=lambda t: (-scores[t], str(t)))
    best = ranked[0]
    alone = _sigmoid(2 * scores[best] - 0.5)  # how good the best record is on its own
    if len(ranked) == 1:
        rule = (
            "qualifier"
            if parts[best].get("qualifier", 0) > 0
            else "exonym"
            if "exonym" in parts[best]
            else "unique-name"
        )
        return Decision(best, round(alone, 3), rule, ranked)
    # Candidates within a few km of the best are the same place to a reader (a town and its
    # island, a site and its harbour): they share the best one's weight.
    point = profs[best].point
    weights = {t: math.exp(2 * (scores[t] - scores[best])) for t in ranked}
    same = sum(
        w
        for t, w in weights.items()
        if t == best
        or (point and (other := profs[t].point) and distance_km(point, other) <= SAME_PLACE_KM)
        or same_area(profs[best], profs[t])
    )
    confidence = same / sum(weights.values()) * alone
    runner = parts[ranked[1]]
    margins = {name: value - runner.get(name, 0.0) for name, value in parts[best].items()}
    rule = max(sorted(margins), key=lambda name: margins[name])
    return Decision(best, round(confidence, 3), rule, ranked)


def same_area(a: Profile, b: Profile) -> bool:
    """Two ancient areas of one title are one place to a reader: a region and the provinces
    named after it ("Mauretania Tingitana": the region, the Roman province and the late Roman
    province; "Macedonia": the region, the kingdoms and the province)."""
    return (
        not a.modern
        and not b.modern
        and a.kind in AREA_KINDS
        and b.kind in AREA_KINDS
        and not set(a.titles).isdisjoint(b.titles)
    )


def document_context(decided: dict, profiles: dict) -> tuple[dict, dict]:
    """From the unambiguous mentions {(doc, chunk): {targets}}: per document the targets
    known there, and per (doc, chunk) the distinct points to measure against."""
    known: dict[str, set] = defaultdict(set)
    by_chunk: dict[tuple, list] = defaultdict(list)
    for (doc, chunk), targets in decided.items():
        for target in targets:
            prof = profiles.get(target)
            known[doc].add(target)
            if prof and prof.point and prof.quality >= 0.6 and prof.kind not in AREA_KINDS:
                by_chunk[(doc, chunk)].append(prof.point)
    return known, {place: sorted(set(points)) for place, points in by_chunk.items()}


class Profiles(dict):
    """Place id → :class:`Profile`, made on first use from what the gazetteer says of each
    place (`raw`: id → [title, description, source, types, lat, lon, number of names]); a
    run looks at a few thousand of 41k places."""

    def __init__(self, raw: dict, fold):
        super().__init__()
        self.raw, self.fold = raw, fold

    def __missing__(self, pid):
        title, description, source, types, lat, lon, names = self.raw[pid]
        value = self[pid] = profile(
            title=title,
            description=description,
            source=source,
            place_types=types,
            lat=lat,
            lon=lon,
            fold=self.fold,
            names=names,
        )
        return value

    def get(self, pid, default=None):
        return self[pid] if pid in self else default

    def __contains__(self, pid) -> bool:
        return pid in self.raw or dict.__contains__(self, pid)

    def items(self):
        return ((pid, self[pid]) for pid in self.raw)
