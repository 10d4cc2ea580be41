"""Hostile files for every loader that decompresses or parses JSON: bombs, lies in the suffix,
bad UTF-8, lines of many megabytes, JSON nested 300,000 levels deep. Each is one line of error,
the rest loads, and `--json` still prints its summary. Real files, the real Neo4j the tests start."""

from __future__ import annotations

import bz2
import gzip
import json
import os
import subprocess
import time

import pytest

from graphrag_cypher.safe_io import MAX_LINE_BYTES

from ..conftest import graphrag_exe

pytestmark = pytest.mark.e2e

DEEP = "[" * 300_000 + "]" * 300_000
PLACE = {
    "id": "1001",
    "title": "Ostia",
    "names": ["Ostia"],
    "placeTypes": ["settlement"],
    "features": [{"geometry": {"type": "Point", "coordinates": [12.29, 41.75]}}],
}


def place(pid: str, title: str) -> str:
    return json.dumps({**PLACE, "id": pid, "title": title, "names": [title]}) + "\n"


def gzip_bomb(path, head: bytes, tail: bytes, gigabytes: float = 1.0):
    """About 1 MB on disk, `gigabytes` decompressed: one member of 1 MB of spaces, repeated."""
    member = gzip.compress(b" " * (1 << 20), 9)
    with open(path, "wb") as out:
        out.write(gzip.compress(head))
        for _ in range(int(gigabytes * 1024)):
            out.write(member)
        out.write(gzip.compress(tail))
    return path


def run_measured(*args, env) -> tuple[int, str, str, int]:
    """The installed `graphrag` as a child process: exit code, stdout, stderr, and its peak RSS
    in MB (VmHWM of its own image, read while it runs: the rusage of a child would also count
    the test process it was forked from)."""
    peak = 0
    with open("out.txt", "w+") as out, open("err.txt", "w+") as err:
        child = subprocess.Popen([graphrag_exe(), *args], stdout=out, stderr=err, env=dict(os.environ, **env))
        while child.poll() is None:
            try:
                status = open(f"/proc/{child.pid}/status").read()
            except OSError:
                continue
            for line in status.splitlines():
                if line.startswith("VmHWM:"):
                    peak = max(peak, int(line.split()[1]) // 1024)
            time.sleep(0.02)
        out.seek(0)
        err.seek(0)
        return child.returncode, out.read(), err.read(), peak


def cli_json(run_cli, *args):
    result = run_cli(*args, "--json")
    return result.exit_code, json.loads(result.stdout), result.stderr


def count(neo4j, text: str) -> int:
    with neo4j.driver() as driver:
        return driver.execute_query(text).records[0][0]


# --- gazetteers --------------------------------------------------------------------------------


def test_a_gzip_bomb_is_refused_with_flat_memory(neo4j, tmp_path):
    bomb = gzip_bomb(tmp_path / "bomb.json.gz", b'{"@graph": [', b"]}")
    assert bomb.stat().st_size < 2 << 20
    code, out, err, rss = run_measured("load", "pleiades", str(bomb), "--json", env=neo4j.env())
    summary = json.loads(out)
    assert code == 3 and summary["places"]["failed"] == 1
    assert "decompression bomb" in summary["errors"][0]["error"], summary
    assert rss < 400, f"peak RSS {rss} MB"  # was 2-3 GB: the whole 1 GB went into json.load
    assert "Traceback" not in err


def test_a_bomb_in_lines_keeps_what_came_before(neo4j, run_cli, tmp_path):
    bomb = gzip_bomb(tmp_path / "places.geojsonl.gz", place("1", "Ostia").encode(), b"\n", gigabytes=0.1)
    code, out, _ = cli_json(run_cli, "load", "pleiades", str(bomb))
    assert code == 3 and out["places"]["created"] == 1 and out["places"]["failed"] == 1
    assert "decompression bomb" in out["errors"][0]["error"]


def test_not_gzip_bad_utf8_and_long_lines_are_one_error_each(neo4j, run_cli, tmp_path):
    fake = tmp_path / "places.geojsonl.gz"
    fake.write_text(place("1", "Ostia"))
    code, out, err = cli_json(run_cli, "load", "pleiades", str(fake))
    assert code == 3 and out["places"]["failed"] == 1 and "not gzip-compressed" in out["errors"][0]["error"]
    assert len(err.strip().splitlines()) == 1  # was: a BadGzipFile traceback

    mixed = tmp_path / "mixed.geojsonl"
    with open(mixed, "wb") as handle:
        handle.write(place("1", "Ostia").encode())
        handle.write(b'{"id": "2", "title": "Bad \xff\xfe bytes"}\n')
        handle.write(b'{"id": "3", "title": "' + b"x" * (MAX_LINE_BYTES + 10) + b'"}\n')
        handle.write(DEEP.encode() + b"\n")
        handle.write(place("4", "Portus").encode())
    code, out, err = cli_json(run_cli, "load", "pleiades", str(mixed))
    assert code == 3 and out["places"]["created"] == 2 and out["places"]["failed"] == 3
    errors = {e["item"]: e["error"] for e in out["errors"]}
    assert "invalid UTF-8" in errors["mixed.geojsonl:2"]
    assert "line longer than" in errors["mixed.geojsonl:3"]
    assert "nested too deeply" in errors["mixed.geojsonl:4"]
    assert count(neo4j, "MATCH (p:Place) RETURN count(p)") == 2


def test_pleiades_csv_with_a_huge_field_and_bad_bytes(neo4j, run_cli, tmp_path):
    csv_file = tmp_path / "pleiades-places.csv"
    csv_file.write_bytes(
        b'id,title,reprLat,reprLong\n1,Ostia,41.75,12.29\n2,"'
        + b"y" * 200_000
        + b'",1,1\n3,Bad \xff,1,1\n4,Portus,41.78,12.26\n'
    )
    code, out, _ = cli_json(run_cli, "load", "pleiades", str(csv_file))
    assert code == 3 and out["places"]["created"] == 2 and out["places"]["failed"] == 2


def test_deep_json_dump_and_unknown_format(neo4j, run_cli, tmp_path):
    deep = tmp_path / "deep.json"
    deep.write_text(DEEP)
    code, out, _ = cli_json(run_cli, "load", "pleiades", str(deep))  # was: a RecursionError traceback
    assert code == 3 and "nested too deeply" in out["errors"][0]["error"]
    odd = tmp_path / "places.xml"
    odd.write_text("<x/>")
    code, out, _ = cli_json(run_cli, "load", "pleiades", str(odd))
    assert code == 3 and "not a Pleiades file" in out["errors"][0]["error"]


# --- documents ------------------------------------------------------------------------------------


def wiki(text_member: bytes) -> bytes:
    return (
        b"<mediawiki><siteinfo><sitename>W</sitename></siteinfo><page><title>Bomb</title><ns>0</ns><id>1</id>"
        b"<revision><id>2</id><text>" + text_member
    )


def test_a_bz2_mediawiki_bomb_is_refused_with_flat_memory(neo4j, run_cli, tmp_path):
    member = bz2.compress(b" " * (1 << 20), 9)
    bomb = tmp_path / "export.xml.bz2"
    with open(bomb, "wb") as out:
        out.write(bz2.compress(wiki(b"")))
        for _ in range(1024):
            out.write(member)
        out.write(bz2.compress(b"</text></revision></page></mediawiki>"))
    code, out, err, rss = run_measured("load", "mediawiki", str(bomb), "--no-embed", "--json", env=neo4j.env())
    summary = json.loads(out)
    assert code == 3 and "decompression bomb" in summary["errors"][0]["error"], summary
    assert rss < 400, f"peak RSS {rss} MB"
    fake = tmp_path / "fake.xml.bz2"
    fake.write_bytes(b"<mediawiki/>")
    code, out, _ = cli_json(run_cli, "load", "mediawiki", str(fake), "--no-embed")
    assert code == 3 and "not bzip2-compressed" in out["errors"][0]["error"]


def test_every_json_loader_refuses_deep_nesting_as_one_item(neo4j, run_cli, tmp_path):
    (tmp_path / "deep.jsonl").write_text('{"id": "a", "title": "A", "text": "Alpha story."}\n' + DEEP + "\n")
    code, out, _ = cli_json(run_cli, "load", "stories", str(tmp_path / "deep.jsonl"), "--no-embed")
    assert code == 3 and out["documents"]["created"] == 1 and "nested too deeply" in out["errors"][0]["error"]

    (tmp_path / "corpus.json").write_text(DEEP)
    code, out, _ = cli_json(run_cli, "load", "qa-corpus", str(tmp_path / "corpus.json"), "--no-embed")
    assert code == 3 and "nested too deeply" in out["errors"][0]["error"]

    chunks = tmp_path / "chunks"
    chunks.mkdir()
    (chunks / "deep.json").write_text(DEEP)
    (chunks / "fine.json").write_text(json.dumps(["One chunk about Ostia.", "Another about Portus."]))
    code, out, _ = cli_json(run_cli, "load", "chunks", str(chunks), "--no-embed")
    assert code == 3 and out["documents"]["created"] == 1 and "nested too deeply" in out["errors"][0]["error"]

    files = tmp_path / "files"
    files.mkdir()
    (files / "deep.json").write_text(DEEP)  # a .json file too deep to indent is loaded as it is
    code, out, _ = cli_json(run_cli, "load", "files", str(files), "--no-embed")
    assert code == 0 and out["documents"]["created"] == 1

    for name in ("deep.json", "deep.jsonl"):
        (tmp_path / f"records-{name}").write_text(DEEP + "\n")
        code, out, _ = cli_json(
            run_cli, "load", "records", str(tmp_path / f"records-{name}"), "--mapping", "got-characters"
        )
        assert code == 3 and out["failed"] == 1 and "nested too deeply" in out["errors"][0]["error"], out


def test_load_records_of_a_file_that_is_not_json_prints_its_summary(neo4j, run_cli, tmp_path):
    path = tmp_path / "characters.json"
    path.write_text("this is not JSON")
    code, out, err = cli_json(run_cli, "load", "records", str(path), "--mapping", "got-characters")
    assert code == 3  # was: exit 1 and nothing on stdout
    assert out["records"] == 0 and out["failed"] == 1 and "invalid JSON" in out["errors"][0]["error"]
    lines = tmp_path / "characters.jsonl"
    lines.write_bytes(b'{"name": "Jon Snow"}\nnot json\n{"name": "Arya \xff Stark"}\n{"name": "Sansa Stark"}\n')
    mapping = tmp_path / "people.yaml"
    mapping.write_text("schema: got\nentity:\n  name: name\n  type: Character\n")
    code, out, err = cli_json(run_cli, "load", "records", str(lines), "--mapping", str(mapping))
    assert code == 3 and out["records"] == 2 and out["failed"] == 2
    assert count(neo4j, "MATCH (e:__Entity__) WHERE e.name IN ['Jon Snow', 'Sansa Stark'] RETURN count(e)") == 2


def test_question_files_refuse_deep_nesting(tmp_path):
    from graphrag_cypher.errors import GraphragError
    from graphrag_cypher.evaluation import read_questions

    (tmp_path / "q.json").write_text(DEEP)
    with pytest.raises(GraphragError, match="nested too deeply"):
        read_questions(tmp_path / "q.json")


def test_learn_and_load_url_print_their_summary_when_nothing_is_usable(neo4j, run_cli, tmp_path):
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "blob.txt").write_bytes(b"\x00\x01\x02" * 100)
    code, out, _ = cli_json(run_cli, "learn", f"harbours | path: {notes}", "--no-embed")
    assert code == 3 and out["documents"]["failed"] == 1 and "binary" in out["errors"][0]["error"]
    code, out, _ = cli_json(run_cli, "load", "url", "http://127.0.0.1:9/nothing.html", "--no-embed", "--timeout", "2")
    assert code == 3 and out["documents"]["failed"] == 1
