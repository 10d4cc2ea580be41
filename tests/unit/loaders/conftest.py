"""Shared paths for the loader tests. Real-data tests skip when ../shared/data is absent."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
FIXTURES = REPO / "tests" / "fixtures" / "loaders"


def data_dir() -> Path:
    return Path(os.environ.get("GRAPHRAG_DATA_DIR") or REPO.parent / "shared" / "data")


def real_data(relative: str) -> Path:
    """The path of a real data file, or a skip saying where it was looked for."""
    path = data_dir() / relative
    if not path.exists():
        pytest.skip(f"real data not available: {path} (set GRAPHRAG_DATA_DIR to the shared data folder)")
    return path
