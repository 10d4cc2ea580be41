"""Retrieval evaluation on MuSiQue for `make bench`: `graphrag eval retrieval --peers --json`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import data_dir  # noqa: E402


def main() -> dict:
    data = data_dir() / "qa"
    questions, corpus = data / "musique_train.json", data / "musique_train_corpus.json"
    if not questions.exists() or not corpus.exists():
        return {"skipped": f"real data not found at {data} (set GRAPHRAG_DATA_DIR)"}
    exe = Path(sys.executable).parent / "graphrag"
    run = subprocess.run(
        [str(exe), "eval", "retrieval", "--questions", str(questions), "--passages", str(corpus), "--peers", "--json"],
        capture_output=True,
        text=True,
        env=dict(os.environ),
    )
    if run.returncode != 0:
        return {
            "skipped": f"eval failed: {run.stderr.strip().splitlines()[-1] if run.stderr.strip() else run.returncode}"
        }
    return json.loads(run.stdout)


if __name__ == "__main__":
    print(json.dumps(main(), indent=2))
