"""mypy over every package of graphrag_cypher (``make lint``).

The package's parts are top-level folders that pyproject's ``package-dir`` maps under
``graphrag_cypher`` (``core/`` is the package itself, ``kg/`` is ``graphrag_cypher.kg``, ...).
mypy reads neither that mapping nor setuptools' editable-install finder, so this builds the
package as mypy expects it — a tree of links under ``.graphrag/typecheck/`` — runs
``mypy -p graphrag_cypher`` on it and reports each error at its file in the repository.

    python scripts/typecheck.py          # exit status is mypy's
"""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TREE = ROOT / ".graphrag" / "typecheck"


def link(target: Path, source: Path) -> None:
    if target.is_symlink() and target.resolve() == source.resolve():
        return
    if target.is_symlink() or target.exists():
        target.unlink()
    target.symlink_to(source, target_is_directory=source.is_dir())


def build_tree(root: Path = ROOT, tree: Path = TREE) -> dict[str, str]:
    """Link every part of the checkout at `root` into `tree` (kept between runs, so mypy's cache
    holds); return link prefix → repository folder, for the report. `tree` on a path imports that
    checkout's code (bench/routes.py runs an earlier revision so)."""
    mapping = tomllib.loads((root / "pyproject.toml").read_text("utf-8"))["tool"]["setuptools"]["package-dir"]
    back: dict[str, str] = {}
    for dotted, folder in sorted(mapping.items(), key=lambda item: item[0].count(".")):
        target = tree.joinpath(*dotted.split("."))
        source = root / folder
        if dotted.count(".") == 0:  # the root package: its files and sub-packages, so that parts can sit beside them
            target.mkdir(parents=True, exist_ok=True)
            for stale in target.iterdir():
                if stale.is_symlink() and not stale.exists():
                    stale.unlink()
            for path in source.glob("*.py"):
                link(target / path.name, path)
            for path in source.glob("*/__init__.py"):
                link(target / path.parent.name, path.parent)
        else:
            link(target, source)
        shown = target.relative_to(ROOT) if target.is_relative_to(ROOT) else target
        back[str(shown) + os.sep] = folder + os.sep
    return back


def main() -> int:
    back = build_tree()
    env = dict(os.environ, MYPYPATH=str(TREE))
    command = [sys.executable, "-m", "mypy", "-p", "graphrag_cypher"]
    out = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)
    for line in (out.stdout + out.stderr).splitlines():
        for link, folder in sorted(back.items(), key=lambda item: -len(item[0])):
            if line.startswith(link):
                line = folder + line[len(link) :]
                break
        print(line)
    return out.returncode


if __name__ == "__main__":
    sys.exit(main())
