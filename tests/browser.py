"""Debian's headless Chromium driven by Playwright's Python package, for the page and Neo4j Browser
tests: one launch, skipped with the install line where either is missing."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

INSTALL = "apt-get install -y chromium && .venv/bin/python -m pip install playwright"


def chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


@contextmanager
def browser_context(width: int, height: int) -> Iterator:
    """A fresh browser context of that viewport (skips the test where Chromium or Playwright is absent)."""
    executable = chromium()
    if executable is None:
        pytest.skip(f"no chromium on this machine: {INSTALL}")
    sync_api = pytest.importorskip("playwright.sync_api", reason=f"playwright is not installed: {INSTALL}")
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=executable, headless=True, args=["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"]
        )
        context = browser.new_context(viewport={"width": width, "height": height})
        try:
            yield context
        finally:
            context.close()
            browser.close()
