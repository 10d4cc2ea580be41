from __future__ import annotations

import bz2
import json
import time

import pytest

from graphrag_cypher.loaders.mediawiki import parse_mediawiki
from graphrag_cypher.model import ItemError, ParsedDocument

from .conftest import FIXTURES, real_data

EXPORT = FIXTURES / "export-0.10.xml"


def test_pages_with_clean_text_sections_infobox_and_aliases():
    results = list(parse_mediawiki(EXPORT))
    assert [r.title for r in results] == ["Harbour Town", "Lighthouse"]
    town = results[0]
    assert town.id == "wiki:testatlas:Harbour Town"
    assert town.uri == "https://atlas.example.org/wiki/Harbour_Town"
    assert town.labels == ("WikiPage",) and town.kind == "wiki"
    assert town.metadata["aliases"] == ["Old harbour", "Portville"]
    assert town.metadata["categories"] == ["Ports"]
    assert town.metadata["date"] == "2023-04-05" and town.metadata["pageId"] == 10
    assert town.metadata["infoboxType"] == "Infobox settlement"
    infobox = json.loads(town.metadata["infobox"])
    assert infobox["country"] == "the Northland" and infobox["population"] == "12,400"
    assert "image" not in infobox  # a file link is not a value
    assert town.metadata["infobox_population"] == "12,400"
    assert [(s.title, s.text) for s in town.sections] == [
        (None, "Harbour Town is a port on the Grey Sea. It was founded by fishers in 1402."),
        ("History", "The town grew around a lighthouse. See the archive for records."),
        ("History > Early years", "Early settlers traded salt & fish."),
    ]
    assert "Ville" not in town.text and "chronicle" not in town.text and "quay" not in town.text


def test_other_namespaces_on_request_and_bz2(tmp_path):
    compressed = tmp_path / "export.xml.bz2"
    compressed.write_bytes(bz2.compress(EXPORT.read_bytes()))
    talk = [r.title for r in parse_mediawiki(compressed, namespaces=(1,))]
    assert talk == ["Talk:Harbour Town"]
    assert len(list(parse_mediawiki(compressed))) == 2


def test_schema_0_11_namespace_is_read_too(tmp_path):
    path = tmp_path / "new.xml"
    path.write_text(EXPORT.read_text().replace("export-0.10", "export-0.11"))
    assert [r.title for r in parse_mediawiki(path)] == ["Harbour Town", "Lighthouse"]


BOMB = """<?xml version="1.0"?>
<!DOCTYPE mediawiki [
  <!ENTITY a "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa">
  <!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">
  <!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">
  <!ENTITY d "&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;">
  <!ENTITY e "&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;">
  <!ENTITY f "&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;">
]>
<mediawiki xmlns="http://www.mediawiki.org/xml/export-0.10/">
  <page><title>Bomb</title><ns>0</ns><id>1</id><revision><id>1</id><text>&f;</text></revision></page>
</mediawiki>"""


def test_entity_expansion_bomb_is_refused_not_expanded(tmp_path):
    path = tmp_path / "bomb.xml"
    path.write_text(BOMB)
    started = time.monotonic()
    results = list(parse_mediawiki(path))
    assert time.monotonic() - started < 2
    assert len(results) == 1 and isinstance(results[0], ItemError)
    assert "unsafe XML refused" in results[0].error


def test_malformed_xml_is_one_item_error(tmp_path):
    path = tmp_path / "cut.xml"
    path.write_text(EXPORT.read_text()[:1500])
    results = list(parse_mediawiki(path))
    assert len(results) == 1 and isinstance(results[0], ItemError) and "cannot read XML" in results[0].error


@pytest.mark.real_data
def test_real_awoiaf_export_354_pages_352_chapter_infoboxes():
    results = list(parse_mediawiki(real_data("got/awoiaf-chapters-export.xml")))
    assert len(results) == 354 and all(isinstance(r, ParsedDocument) for r in results)
    with_box = [r for r in results if r.metadata.get("infoboxType", "").lower().startswith("infobox chapter")]
    assert len(with_box) == 352
    assert all(r.uri.startswith("http://awoiaf.westeros.org/index.php/") and " " not in r.uri for r in results)


@pytest.mark.real_data
def test_real_enwiki_sample_106_articles_redirects_become_aliases():
    path = real_data("wiki/enwiki-sample-pages-articles.xml")
    results = list(parse_mediawiki(path))
    assert len(results) == 106 and all(isinstance(r, ParsedDocument) for r in results)
    assert sum("infoboxType" in r.metadata for r in results) == 45
    by_title = {r.title: r for r in results}
    assert by_title["Abraham Lincoln"].uri == "https://en.wikipedia.org/wiki/Abraham_Lincoln"
    # only 13 of the sample's 100 redirects point at pages that are in the sample
    assert sum(len(r.metadata.get("aliases", [])) for r in results) == 13
    assert all("{{" not in r.text and "[[" not in r.text for r in results)
