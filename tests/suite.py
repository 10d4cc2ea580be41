"""The suite's own plugin: lanes, families of heavy tests, and where the time goes.

Families (markers, declared in pyproject.toml): a test that uses one of the fixtures in
`FIXTURE_FAMILIES` (directly or through another fixture) gets that family, e.g. `e2e` for every
test that reaches the session's Neo4j; the rest are set in the test modules. Run or skip one
by name: `pytest -m browser`, `pytest -m "not scale"`.

`--lane fast` keeps the pure-logic tests (none of the families) and holds them to it: a test
in that lane that starts a process or imports a model library fails and says which marker it
needs, so the lane stays fast as tests are added.

At the end of a run: the time per test folder (setup, call and teardown of every test in it, so
a module's graph load counts where it is paid); `--timing-json PATH` writes every test's time
for a before/after comparison. The 25 slowest tests come from `--durations=25` (pyproject.toml).
"""

from __future__ import annotations

import importlib.abc
import json
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path

import pytest

HEAVY = ("e2e", "process", "model", "browser", "mediawiki", "local_model", "real_data", "scale")
# Importing any of these takes seconds (or loads weights): not for the fast lane.
MODEL_LIBRARIES = ("torch", "sentence_transformers", "transformers", "onnxruntime", "spacy", "llama_cpp")


def pytest_addoption(parser):
    group = parser.getgroup("graphrag")
    group.addoption(
        "--lane",
        choices=("all", "fast"),
        default="all",
        help="fast: only the tests of no heavy family (no Neo4j, no process, no model), held to it",
    )
    group.addoption(
        "--timing-json", metavar="PATH", default=None, help="write each test's seconds (setup+call+teardown) as JSON"
    )


def pytest_configure(config):
    if not hasattr(config, "workerinput"):  # with xdist the controller sums what its workers report
        config.pluginmanager.register(Timing(config), "graphrag-timing")
    if config.getoption("--lane") == "fast":
        config.pluginmanager.register(FastLane(), "graphrag-fast-lane")


# A test that uses one of these fixtures (directly or through another) is of that family.
FIXTURE_FAMILIES = {
    "neo4j_server": "e2e",  # the session's Neo4j
    "page": "browser",  # tests/e2e/serve/test_page.py: Chromium on a served page
    "run_exe": "process",  # the installed `graphrag` executable
    "served": "process",  # a `graphrag serve` subprocess
    "llama_cpp": "local_model",
    "tiny_model": "local_model",
    "wikis": "mediawiki",  # tests/e2e/test_load_mediawiki_api.py: PHP's server with MediaWiki
}


def pytest_collection_modifyitems(config, items):
    for item in items:
        names = set(getattr(item, "fixturenames", ()))
        for fixture, family in FIXTURE_FAMILIES.items():
            if fixture in names and not item.get_closest_marker(family):
                item.add_marker(getattr(pytest.mark, family))
    if config.getoption("--lane") == "fast":
        keep, drop = [], []
        for item in items:
            (drop if any(item.get_closest_marker(m) for m in HEAVY) else keep).append(item)
        if drop:
            config.hook.pytest_deselected(items=drop)
            items[:] = keep


class _Refuse(importlib.abc.MetaPathFinder):
    def __init__(self, nodeid: str):
        self.nodeid = nodeid

    def find_spec(self, name, path=None, target=None):
        if name.split(".", 1)[0] in MODEL_LIBRARIES:
            raise AssertionError(
                f"{self.nodeid} imports {name} in the fast lane: mark it @pytest.mark.model (tests/suite.py)"
            )
        return None


class FastLane:
    """Each test of the fast lane runs with process starts and model imports refused."""

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_protocol(self, item, nextitem):
        finder = _Refuse(item.nodeid)
        real_init = subprocess.Popen.__init__

        def refuse(_popen, args, *_rest, **_kwargs):
            raise AssertionError(
                f"{item.nodeid} starts a process ({args!r:.80}) in the fast lane: "
                "mark it @pytest.mark.process (tests/suite.py)"
            )

        sys.meta_path.insert(0, finder)
        subprocess.Popen.__init__ = refuse  # type: ignore[method-assign]
        try:
            return (yield)
        finally:
            subprocess.Popen.__init__ = real_init  # type: ignore[method-assign]
            sys.meta_path.remove(finder)


class Timing:
    def __init__(self, config):
        self.config = config
        self.per_test: dict[str, float] = defaultdict(float)
        self.started = time.monotonic()

    @staticmethod
    def folder(nodeid: str) -> str:
        return str(Path(nodeid.split("::", 1)[0]).parent)

    def pytest_runtest_logreport(self, report):
        self.per_test[report.nodeid] += report.duration

    def pytest_terminal_summary(self, terminalreporter):
        if not self.per_test:
            return
        folders: dict[str, list[float]] = defaultdict(list)
        for nodeid, seconds in self.per_test.items():
            folders[self.folder(nodeid)].append(seconds)
        wall = time.monotonic() - self.started
        total = sum(self.per_test.values()) or 1.0
        write = terminalreporter.write_line
        terminalreporter.section("time per test folder")
        write(f"{'folder':<28} {'tests':>6} {'seconds':>9} {'share':>6}")
        for name, times in sorted(folders.items(), key=lambda kv: -sum(kv[1])):
            write(f"{name:<28} {len(times):>6} {sum(times):>9.1f} {sum(times) / total:>6.0%}")
        write(f"{'all':<28} {len(self.per_test):>6} {total:>9.1f}   (wall {wall:.0f} s)")
        target = self.config.getoption("--timing-json")
        if target:
            Path(target).write_text(json.dumps({"wall": wall, "tests": self.per_test}, indent=0, sort_keys=True))
