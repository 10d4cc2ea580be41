"""A hostile MediaWiki export: one page of 21 MB of the same sentence, through `graphrag load
mediawiki` with the default embedder, on a throw-away Neo4j (peak memory by /usr/bin/time -v).

The goal: done in 60 s or less, under 2 GB of peak memory. The page's text is cut at the
document budget (GRAPHRAG_PARSE_MAX_CHARS), and every chunk of the same text is encoded once.
Prints one JSON object: seconds, peak RSS of the `graphrag` process, what the load reported.

    .venv/bin/python bench/hostile_mediawiki.py [--mb 21] [--semantic]
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import bench_neo4j, graphrag_env  # noqa: E402

SENTENCE = "The harbour master of Ostia counted the grain ships that came in with the morning tide. "


def write_export(path: Path, megabytes: float) -> int:
    """A one-page export whose page is `megabytes` MB of SENTENCE; returns the text's size."""
    repeats = int(megabytes * 1_000_000 / len(SENTENCE))
    with path.open("w", encoding="utf-8") as out:
        out.write(
            '<mediawiki xmlns="http://www.mediawiki.org/xml/export-0.10/" version="0.10" xml:lang="en">\n'
            "<siteinfo><sitename>Hostile</sitename><dbname>hostile</dbname>"
            '<namespaces><namespace key="0" case="first-letter" /></namespaces></siteinfo>\n'
            "<page><title>Grain Ships</title><ns>0</ns><id>1</id><revision><id>1</id>"
            '<timestamp>2024-01-01T00:00:00Z</timestamp><text xml:space="preserve">'
        )
        block = SENTENCE * 1000
        for _ in range(repeats // 1000):
            out.write(block)
        out.write(SENTENCE * (repeats % 1000))
        out.write("</text></revision></page>\n</mediawiki>\n")
    return repeats * len(SENTENCE)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mb", type=float, default=21.0, help="size of the page's text in MB")
    parser.add_argument("--semantic", action="store_true", help="load with --semantic chunking")
    args = parser.parse_args()
    graphrag = shutil.which("graphrag", path=str(Path(sys.executable).parent)) or "graphrag"
    with tempfile.TemporaryDirectory(prefix="hostile-mediawiki-") as tmp, bench_neo4j() as (settings, _graph):
        export = Path(tmp) / "export.xml"
        size = write_export(export, args.mb)
        command = [graphrag, "load", "mediawiki", str(export), "--json", *(["--semantic"] if args.semantic else [])]
        timing = Path(tmp) / "time.txt"
        started = time.perf_counter()
        done = subprocess.run(
            ["/usr/bin/time", "-v", "-o", str(timing), *command],
            env=graphrag_env(settings),
            capture_output=True,
            text=True,
            check=False,
        )
        seconds = time.perf_counter() - started
        peak_kb = next(
            int(line.split(":")[1]) for line in timing.read_text().splitlines() if "Maximum resident set size" in line
        )
        try:
            result = json.loads(done.stdout)
        except ValueError:
            result = {"stdout": done.stdout[-2000:], "stderr": done.stderr[-2000:]}
        report = {
            "page_mb": round(size / 1e6, 1),
            "semantic": args.semantic,
            "exit_code": done.returncode,
            "seconds": round(seconds, 1),
            "peak_rss_mb": round(peak_kb / 1024),
            "documents": result.get("documents"),
            "chunks": result.get("chunks"),
            "warnings": result.get("warnings"),
            "errors": result.get("errors"),
            "goal": {"seconds": 60, "peak_rss_mb": 2048},
        }
        report["met"] = done.returncode == 0 and seconds <= 60 and report["peak_rss_mb"] < 2048
        if "stderr" in result:
            report["output"] = result
        print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
