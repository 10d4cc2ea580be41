"""`graphrag link wikidata`: Pleiades places ↔ Wikidata items by Pleiades id (P1584).

Batches of Pleiades ids go to the SPARQL endpoint in a ``VALUES`` block; each answer row
becomes a ``:WikidataEntity`` (label, P31 instance-of, P625 coordinates) and a ``SAME_AS``
edge from the place (`places/merge_wikidata.cypher`). Polite: a delay between queries, a
descriptive User-Agent, retries with exponential backoff and jitter on 429, 5xx and
timeouts (honouring Retry-After). Resumable: a batch is written, and its places marked as
looked up (`wikidataCheckedAt`), before the next is asked for; the next run skips them.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar

from graphrag_cypher import __version__
from graphrag_cypher.db import Graph
from graphrag_cypher.errors import GraphragError

from .base import LinkOptions, LinkResult, options_for

USER_AGENT = (
    f"graphrag-cypher/{__version__} (Neo4j GraphRAG toolkit; Pleiades-Wikidata alignment; "
    "https://github.com/graphrag-cypher)"
)
WD = "http://www.wikidata.org/entity/"
_SAFE_ID = re.compile(r"^[0-9A-Za-z_-]+$")
_POINT = re.compile(r"Point\(\s*([-+0-9.eE]+)\s+([-+0-9.eE]+)\s*\)", re.IGNORECASE)

QUERY = """PREFIX wdt: <http://www.wikidata.org/prop/direct/>
PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>
SELECT ?item ?pid ?label ?class ?coord WHERE {
  VALUES ?pid { %s }
  ?item wdt:P1584 ?pid .
  OPTIONAL { ?item rdfs:label ?label . FILTER(LANG(?label) = "en") }
  OPTIONAL { ?item wdt:P31 ?class . }
  OPTIONAL { ?item wdt:P625 ?coord . }
}"""


class RetryableStatus(Exception):
    def __init__(self, status: int, retry_after: float | None):
        super().__init__(f"HTTP {status}")
        self.status, self.retry_after = status, retry_after


@dataclass(kw_only=True)
class WikidataOptions(LinkOptions):
    """Places are aligned whatever corpus mentions them, and a lookup is the point of a run:
    this linker takes no `corpus` and has no dry run. `batch`: Pleiades ids per query."""

    endpoint: str = "https://query.wikidata.org/sparql"
    batch: int = 200
    delay: float = 1.0
    timeout: float = 60.0
    retries: int = 5
    recheck: bool = False
    limit: int | None = None
    max_backoff: float = 60.0


@dataclass(kw_only=True)
class WikidataLinkResult(LinkResult):
    """What a Wikidata run asked and wrote; `to_dict` is the --json output."""

    JSON_KEYS: ClassVar[dict[str, str | None]] = {
        "found": "matched",
        "created": "links_created",
        "total": "aligned_total",
        "updated": None,
        "removed": None,
        "dry_run": None,
    }

    endpoint: str = ""
    places_queried: int = 0
    queries: int = 0
    entities_created: int = 0


def sparql_query(pleiades_ids: list[str]) -> str:
    """The SELECT for one batch; ids are checked to be plain tokens before they become literals."""
    bad = [p for p in pleiades_ids if not _SAFE_ID.match(p)]
    if bad:
        raise GraphragError(f"not a Pleiades id: {bad[0]!r}")
    return QUERY % " ".join(f'"{p}"' for p in pleiades_ids)


def parse_bindings(data: dict) -> list[dict]:
    """SPARQL JSON results → one row per (QID, Pleiades id) with label, classes and point."""
    rows: dict[tuple[str, str], dict] = {}
    for binding in data.get("results", {}).get("bindings", []):
        item = binding.get("item", {}).get("value", "")
        pid = binding.get("pid", {}).get("value")
        if not item.startswith(WD) or not pid:
            continue
        qid = item[len(WD) :]
        row = rows.setdefault(
            (qid, pid),
            {"qid": qid, "pleiadesId": pid, "uri": item, "label": None, "instanceOf": set(), "lat": None, "lon": None},
        )
        if "label" in binding and row["label"] is None:
            row["label"] = binding["label"]["value"]
        if "class" in binding and binding["class"]["value"].startswith(WD):
            row["instanceOf"].add(binding["class"]["value"][len(WD) :])
        point = _POINT.search(binding.get("coord", {}).get("value", ""))
        if point and row["lat"] is None:
            row["lon"], row["lat"] = float(point.group(1)), float(point.group(2))
    return [dict(r, instanceOf=sorted(r["instanceOf"])) for _, r in sorted(rows.items())]


def _client(options: WikidataOptions):
    import httpx

    return httpx.Client(
        timeout=options.timeout,
        follow_redirects=True,
        headers={"User-Agent": USER_AGENT, "Accept": "application/sparql-results+json"},
    )


def fetch(client, options: WikidataOptions, query: str, sleep: Callable[[float], None] = time.sleep) -> dict:
    """POST one query; retry 429, 5xx, timeouts and dropped connections with backoff and jitter."""
    import httpx
    from tenacity import RetryError, Retrying, retry_if_exception_type, stop_after_attempt, wait_exponential_jitter

    def wait(state) -> float:
        backoff = wait_exponential_jitter(initial=1, max=options.max_backoff, jitter=1)(state)
        exc = state.outcome.exception() if state.outcome else None
        if isinstance(exc, RetryableStatus) and exc.retry_after is not None:
            return min(max(backoff, exc.retry_after), options.max_backoff)
        return backoff

    def once() -> dict:
        response = client.post(options.endpoint, data={"query": query})
        if response.status_code == 429 or response.status_code >= 500:
            after = response.headers.get("Retry-After")
            raise RetryableStatus(response.status_code, float(after) if after and after.isdigit() else None)
        if response.status_code >= 400:
            raise GraphragError(
                f"SPARQL endpoint {options.endpoint} answered HTTP {response.status_code}: "
                f"{response.text[:200].strip()}"
            )
        try:
            return response.json()
        except ValueError:
            raise GraphragError(f"SPARQL endpoint {options.endpoint} did not answer JSON") from None

    retrying = Retrying(
        stop=stop_after_attempt(options.retries + 1),
        wait=wait,
        sleep=sleep,
        reraise=False,
        retry=retry_if_exception_type((RetryableStatus, httpx.TimeoutException, httpx.TransportError)),
    )
    try:
        return retrying(once)
    except RetryError as exc:
        last = exc.last_attempt.exception()
        raise GraphragError(
            f"SPARQL endpoint {options.endpoint} failed {options.retries + 1} time(s): "
            f"{last or 'no answer'}; run again to resume"
        ) from None


def link_wikidata(
    graph: Graph, options: WikidataOptions | None = None, sleep: Callable[[float], None] = time.sleep, **fields
) -> WikidataLinkResult:
    """Look the places not looked up before (all with `recheck`) up on the endpoint, batch by batch."""
    options = options_for(WikidataOptions, options, fields)
    options.refuse("wikidata", corpus=True, dry_run=True)
    result = WikidataLinkResult(endpoint=options.endpoint)
    started = time.perf_counter()
    after = ""
    with _client(options) as client:
        while options.limit is None or result.places_queried < options.limit:
            size = options.batch if options.limit is None else min(options.batch, options.limit - result.places_queried)
            places = graph.read("places/wikidata_pending", after=after, limit=size, all=options.recheck)
            if not places:
                break
            after = places[-1]["pleiadesId"]
            if result.queries:
                sleep(options.delay)
            rows = parse_bindings(fetch(client, options, sparql_query([p["pleiadesId"] for p in places]), sleep))
            result.queries += 1
            result.places_queried += len(places)
            if rows:
                written = graph.write("places/merge_wikidata", rows=rows)[0]
                result.entities_created += written["entities_created"]
                result.created += written["links_created"]
            graph.write("places/mark_wikidata_checked", pleiadesIds=[p["pleiadesId"] for p in places])
            result.found += len({r["pleiadesId"] for r in rows})
            options.progress(f"wikidata: {result.places_queried} places queried, {result.found} matched")
    result.total = graph.read("sanity/wikidata")[0]["alignedPlaces"]
    result.seconds["run"] = round(time.perf_counter() - started, 3)
    return result
