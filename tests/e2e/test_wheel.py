"""The wheel works outside the repository.

`python -m build` makes the sdist and, from it, the wheel (offline: `--no-isolation` builds with
this environment's setuptools), and says no warning. The wheel goes into a fresh virtual
environment; its `graphrag`, run from an empty folder, applies the schema and passes `doctor`
against the session's Neo4j, every Cypher file read from the installed package.

The fresh environment gets the dependencies without a download: a `.pth` file names this
environment's site-packages folders as plain path entries. Python does not run the `.pth`
files inside a folder named that way, so the repository's editable install (a `.pth` hook) stays
out and `graphrag_cypher` can only come from the wheel; the test checks that it does.
"""

import json
import os
import shutil
import site
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

pytestmark = pytest.mark.process

ROOT = Path(__file__).resolve().parents[2]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))
# source folder -> its package's folder inside the installed graphrag_cypher
FOLDERS = {
    folder: Path(*package.split(".")[1:]) for package, folder in PROJECT["tool"]["setuptools"]["package-dir"].items()
}
# in the repository, not in the wheel: the NER pipeline's pinned requirements (make setup installs
# them) and the benchmarks' own queries
LEFT_OUT = ("kg/ner-pipeline.txt", "cypher/queries/bench/")


def run(command: list, cwd: Path, env: dict, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


def source_copy(target: Path) -> Path:
    """What the build reads (pyproject.toml, the readme, the licence, the package folders), copied,
    so that the build writes nothing into the repository."""
    target.mkdir()
    for name in ("pyproject.toml", PROJECT["project"]["readme"], *PROJECT["project"]["license-files"]):
        shutil.copy2(ROOT / name, target / name)
    for folder in FOLDERS:
        shutil.copytree(ROOT / folder, target / folder, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    return target


def expected_files(source: Path) -> set[str]:
    """Every file of the package folders, where the installed package should hold it."""
    found = set()
    for folder, inside in FOLDERS.items():
        for path in (source / folder).rglob("*"):
            relative = path.relative_to(source).as_posix()
            if path.is_file() and not relative.startswith(LEFT_OUT):
                found.add((inside / path.relative_to(source / folder)).as_posix())
    return found


def test_the_wheel_installs_and_runs_doctor_outside_the_repository(neo4j, tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONDONTWRITEBYTECODE")}
    source = source_copy(tmp_path / "source")
    built = run([sys.executable, "-m", "build", "--no-isolation", "--outdir", str(tmp_path / "dist"), "."], source, env)
    assert built.returncode == 0, built.stdout + built.stderr
    said = [line for line in (built.stdout + built.stderr).splitlines() if "warn" in line.lower()]
    assert not said, "the build warns:\n" + "\n".join(said)
    (wheel,) = (tmp_path / "dist").glob("graphrag_cypher-*.whl")

    venv = tmp_path / "venv"
    assert run([sys.executable, "-m", "venv", "--without-pip", str(venv)], tmp_path, env).returncode == 0
    python = venv / "bin" / "python"
    pip = [sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "--no-index"]
    installed = run([*pip, str(wheel)], tmp_path, env)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    where = run([str(python), "-c", "import site; print(site.getsitepackages()[0])"], tmp_path, env).stdout.strip()
    (Path(where) / "test-dependencies.pth").write_text("\n".join(site.getsitepackages()) + "\n", encoding="utf-8")

    imported = run([str(python), "-c", "import graphrag_cypher.db as db; print(db.__file__)"], tmp_path, env)
    assert imported.returncode == 0, imported.stderr
    package = Path(imported.stdout.strip()).parent
    assert package == Path(where) / "graphrag_cypher", package
    shipped = {
        p.relative_to(package).as_posix() for p in package.rglob("*") if p.is_file() and "__pycache__" not in p.parts
    }
    expected = expected_files(source)
    assert not expected - shipped, f"left out of the wheel: {sorted(expected - shipped)}"
    assert not shipped - expected, (
        f"in the wheel, not in the source (or meant to stay out): {sorted(shipped - expected)}"
    )
    assert "server/page/index.html" in shipped and "kg/schemas/got.yaml" in shipped
    assert not any(name.startswith("cypher/queries/bench/") for name in shipped)

    graphrag = str(venv / "bin" / "graphrag")
    env = dict(env, **neo4j.env(), GRAPHRAG_ENV_FILE=str(tmp_path / "no.env"))
    work = tmp_path / "elsewhere"
    work.mkdir()
    applied = run([graphrag, "apply-schema"], work, env)
    assert applied.returncode == 0, applied.stdout + applied.stderr
    doctor = run([graphrag, "doctor", "--json"], work, env)
    assert doctor.returncode == 0, doctor.stdout + doctor.stderr
    report = json.loads(doctor.stdout)
    migrations = sorted(p.name for p in (ROOT / "cypher" / "migrations").glob("*.cypher"))
    assert report["schema"]["up_to_date"] and sorted(report["schema"]["applied"]) == migrations
    by_name = {index["name"]: index for index in report["indexes"]}
    assert by_name["chunk_embedding"]["state"] == "ONLINE" and by_name["chunk_embedding"]["dimensions"] == 384
    assert all(index["state"] == "ONLINE" for index in report["indexes"])
