"""The linkers' one interface: options, results and progress of the same shape for all five."""

import pytest

from graphrag_cypher.errors import GraphragError
from graphrag_cypher.linkers.base import LinkOptions, LinkResult, no_progress, options_for
from graphrag_cypher.linkers.entities import EntityLinkOptions, EntityLinkResult
from graphrag_cypher.linkers.phrases import PhraseLinkOptions, PhraseLinkResult
from graphrag_cypher.linkers.places import PlaceLinkOptions, PlaceLinkResult
from graphrag_cypher.linkers.titles import TitleLinkOptions, TitleLinkResult
from graphrag_cypher.linkers.wikidata import WikidataLinkResult, WikidataOptions

OPTIONS = [PlaceLinkOptions, TitleLinkOptions, PhraseLinkOptions, EntityLinkOptions, WikidataOptions]


@pytest.mark.parametrize("cls", OPTIONS)
def test_every_linker_takes_the_common_options(cls):
    seen = []
    options = cls(corpus=None, dry_run=False, batch=7, progress=seen.append)
    assert isinstance(options, LinkOptions) and options.batch == 7
    options.progress("halfway")
    assert seen == ["halfway"] and cls().progress is no_progress


def test_options_for_fills_in_fields_by_name():
    assert options_for(TitleLinkOptions, None, {"corpus": "x"}) == TitleLinkOptions(corpus="x")
    given = TitleLinkOptions(min_length=6)
    assert options_for(TitleLinkOptions, given, {}) is given
    assert options_for(TitleLinkOptions, given, {"dry_run": True}) == TitleLinkOptions(min_length=6, dry_run=True)
    with pytest.raises(TypeError):
        options_for(TitleLinkOptions, None, {"no_such_option": 1})


def test_a_common_option_a_linker_cannot_honour_is_one_line():
    with pytest.raises(GraphragError, match="no corpus option"):
        PhraseLinkOptions(corpus="isaw").refuse("phrases", corpus=True)
    with pytest.raises(GraphragError, match="no dry run"):
        WikidataOptions(dry_run=True).refuse("wikidata", corpus=True, dry_run=True)
    WikidataOptions().refuse("wikidata", corpus=True, dry_run=True)


@pytest.mark.parametrize(
    "result, keys",
    [
        (
            PlaceLinkResult(engine="fast", found=3, created=2, updated=1, removed=1, total=4),
            {
                "engine",
                "names",
                "places",
                "stoplisted",
                "too_short",
                "chunks_scanned",
                "chunks_skipped",
                "matches",
                "mentions",
                "mentions_created",
                "mentions_removed",
                "mentions_total",
                "mentions_updated",
                "overlapped",
                "not_a_place",
                "linked",
                "undecided",
                "rules",
                "names_cached",
                "dry_run",
                "seconds",
            },
        ),
        (
            TitleLinkResult(found=3, created=2, total=4),
            {
                "full",
                "documents",
                "topics",
                "names_searched",
                "chunks_scanned",
                "new_titles",
                "chunks_shortlisted",
                "topics_created",
                "topics_removed",
                "title_mentions_found",
                "mentions_created",
                "mentions_updated",
                "mentions_removed",
                "mentions_total",
                "dry_run",
                "seconds",
            },
        ),
        (
            PhraseLinkResult(found=3, created=2, removed=1),
            {
                "chunks",
                "full",
                "max_chunks",
                "phrases_found",
                "phrases",
                "too_common",
                "links",
                "phrases_written",
                "links_created",
                "links_removed",
                "phrases_removed",
                "errors",
                "dry_run",
                "seconds",
            },
        ),
        (
            EntityLinkResult(found=3, created=2, updated=1, removed=1, total=4),
            {
                "full",
                "names",
                "entities",
                "entities_changed",
                "names_searched",
                "chunks_shortlisted",
                "documents",
                "chunks_scanned",
                "matches",
                "mentions",
                "mentions_created",
                "mentions_updated",
                "mentions_removed",
                "mentions_total",
                "undecided",
                "linked",
                "rules",
                "co_occurs",
                "co_occurs_created",
                "co_occurs_removed",
                "authored",
                "dry_run",
                "seconds",
            },
        ),
        (
            WikidataLinkResult(found=3, created=2, total=4),
            {
                "endpoint",
                "places_queried",
                "queries",
                "matched",
                "entities_created",
                "links_created",
                "aligned_total",
                "seconds",
            },
        ),
    ],
)
def test_results_share_their_counts_and_keep_their_json_keys(result, keys):
    out = result.to_dict()
    assert isinstance(result, LinkResult) and set(out) == keys
    assert (result.found, result.created) == (3, 2)
    names = type(result).JSON_KEYS
    assert out[names.get("found", "found")] == 3 and result[names.get("created", "created")] == 2
    assert isinstance(result.skipped, dict)


def test_a_title_dry_run_counts_no_total():
    assert "mentions_total" not in TitleLinkResult(dry_run=True).to_dict()
    assert "edges" not in PlaceLinkResult(engine="fast", edges={("c", "p"): {}}).to_dict()
