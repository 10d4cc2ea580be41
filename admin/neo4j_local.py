"""Build and run a real local Neo4j (Community + APOC + Open GDS) without Docker.

The JVM side lives in ``procedures/`` (Maven): ``mvn package`` assembles a runnable
server layout at ``procedures/server/target/neo4j-dist/{lib,plugins}``. This module
builds it on demand, writes a per-instance ``neo4j.conf`` under the instance home,
sets the initial password on first start, launches ``org.neo4j.server.CommunityEntryPoint``
detached, and waits until Bolt answers.

Each instance is a home folder (conf/, data/, logs/, run/, import/) plus two ports, so
several instances can run side by side. Only the standard library is imported at module
import time; the ``neo4j`` driver is imported lazily (and is optional: without it the
readiness check is a TCP connect only).
"""

from __future__ import annotations

import glob
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from graphrag_cypher.config import project_root
from graphrag_cypher.errors import GraphragError, Neo4jUnavailable

__all__ = [
    "LocalInstance",
    "project_root",
    "dist_dir",
    "ensure_built",
    "start",
    "stop",
    "status",
    "log_path",
    "versions",
    "admin_import",
    "JVM_FLAGS",
]

ENTRY_POINT = "org.neo4j.server.CommunityEntryPoint"
ADMIN_TOOL = "org.neo4j.cli.AdminTool"
PID_FILE = "graphrag-neo4j.pid"
STATE_FILE = "graphrag-neo4j.json"
BUILD_STAMP = ".graphrag-build-stamp"
VERSIONS_FILE = "versions.properties"
SUPPORTED_JAVA = (17, 21)  # what Neo4j 5.26 runs on

# The flags Neo4j's own launcher passes on Java 17/21: the default ``server.jvm.additional``
# list of the official 5.26 distribution's conf/neo4j.conf (minus -XX:+AlwaysPreTouch, which
# only slows down start-up of a small dev heap) plus -Dfile.encoding=UTF-8 that the launcher
# always adds.
JVM_FLAGS: tuple[str, ...] = (
    "-XX:+UseG1GC",
    "-XX:-OmitStackTraceInFastThrow",
    "-XX:+UnlockExperimentalVMOptions",
    "-XX:+TrustFinalNonStaticFields",
    "-XX:+DisableExplicitGC",
    "-Djdk.nio.maxCachedBufferSize=1024",
    "-Dio.netty.tryReflectionSetAccessible=true",
    "-Djdk.tls.ephemeralDHKeySize=2048",
    "-Djdk.tls.rejectClientInitiatedRenegotiation=true",
    "-XX:FlightRecorderOptions=stackdepth=256",
    "-XX:+UnlockDiagnosticVMOptions",
    "-XX:+DebugNonSafepoints",
    "--add-opens=java.base/java.nio=ALL-UNNAMED",
    "--add-opens=java.base/java.io=ALL-UNNAMED",
    "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
    "--enable-native-access=ALL-UNNAMED",
    "-Dlog4j2.disable.jmx=true",
    "-Dlog4j.layout.jsonTemplate.maxStringLength=32768",
    "-Dfile.encoding=UTF-8",
)

# Popen objects of servers started by this Python process, so stop() can reap them.
_CHILDREN: dict[int, subprocess.Popen] = {}


@dataclass
class LocalInstance:
    """One local Neo4j: a home folder and its ports.

    ``password`` is only needed by :func:`start`; ``stop``/``status``/``log_path`` work
    without it. A relative ``home`` is taken relative to :func:`project_root`.
    """

    home: Path = field(default_factory=lambda: Path(".graphrag/neo4j"))
    bolt_port: int = 7687
    http_port: int | None = 7474  # None = HTTP (and Neo4j Browser) disabled
    password: str = ""
    heap: str = "1g"
    pagecache: str = "256m"

    def __post_init__(self) -> None:
        self.home = Path(self.home)

    @property
    def home_dir(self) -> Path:
        home = self.home.expanduser()
        if not home.is_absolute():
            home = project_root() / home
        return home.resolve()

    @property
    def uri(self) -> str:
        return f"bolt://127.0.0.1:{self.bolt_port}"


# --------------------------------------------------------------------------- locations


def dist_dir() -> Path:
    """The assembled server layout (``lib/``, ``plugins/``, ``versions.properties``)."""
    env = os.environ.get("GRAPHRAG_NEO4J_DIST")
    if env:
        return Path(env).expanduser().resolve()
    return project_root() / "procedures" / "server" / "target" / "neo4j-dist"


def _build_log() -> Path:
    return project_root() / ".graphrag" / "logs" / "procedures-build.log"


def _pid_file(home: Path) -> Path:
    return home / "run" / PID_FILE


def _state_file(home: Path) -> Path:
    return home / "run" / STATE_FILE


def log_path(inst: LocalInstance) -> Path:
    """The log to show for ``graphrag neo4j logs``: neo4j.log, else the console log."""
    logs = inst.home_dir / "logs"
    main = logs / "neo4j.log"
    console = logs / "console.log"
    if main.exists() or not console.exists():
        return main
    return console


# --------------------------------------------------------------------------- java / build


def _java_major(java: str) -> int | None:
    try:
        out = subprocess.run([java, "-version"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    m = re.search(r'version "(\d+)(?:\.(\d+))?', out.stderr + out.stdout)
    if not m:
        return None
    major = int(m.group(1))
    return int(m.group(2)) if major == 1 and m.group(2) else major


_JAVA_CACHE: dict[str, Path] = {}


def _find_java() -> Path:
    """A ``java`` binary of version 17 or 21 (Neo4j 5.26 does not run on newer JDKs)."""
    if "java" in _JAVA_CACHE:
        return _JAVA_CACHE["java"]
    candidates: list[Path] = []
    for var in ("GRAPHRAG_JAVA_HOME", "JAVA_HOME"):
        if os.environ.get(var):
            candidates.append(Path(os.environ[var]) / "bin" / "java")
    on_path = shutil.which("java")
    if on_path:
        candidates.append(Path(on_path))
    for pattern in (
        "/usr/lib/jvm/java-17-openjdk*",
        "/usr/lib/jvm/*17*",
        "/usr/lib/jvm/java-21-openjdk*",
        "/usr/lib/jvm/*21*",
        "/Library/Java/JavaVirtualMachines/*17*/Contents/Home",
        "/Library/Java/JavaVirtualMachines/*21*/Contents/Home",
    ):
        candidates.extend(Path(p) / "bin" / "java" for p in sorted(glob.glob(pattern)))
    seen: set[Path] = set()
    for java in candidates:
        java = java.resolve() if java.exists() else java
        if java in seen or not java.is_file():
            continue
        seen.add(java)
        if _java_major(str(java)) in SUPPORTED_JAVA:
            _JAVA_CACHE["java"] = java
            return java
    raise GraphragError(
        "Java 17 (or 21) is required to run Neo4j 5.26 and was not found; install OpenJDK 17 "
        "or set GRAPHRAG_JAVA_HOME to its home"
    )


def _java_home(java: Path) -> Path:
    return java.resolve().parent.parent


def _sources_mtime(proc_dir: Path) -> float:
    newest = 0.0
    for path in proc_dir.rglob("*"):
        rel = path.relative_to(proc_dir).parts
        if "target" in rel or not path.is_file():
            continue
        if path.name == "pom.xml" or "src" in rel:
            newest = max(newest, path.stat().st_mtime)
    # The place linker's word lists and section rule, and the lexicon's word lists, copied into the plugin's jar.
    for path in [*(proc_dir.parent / "linkers").glob("*.txt"), *(proc_dir.parent / "core" / "lexicon").glob("*.txt")]:
        newest = max(newest, path.stat().st_mtime)
    return newest


def _is_built() -> bool:
    dist = dist_dir()
    stamp = dist / BUILD_STAMP
    if not (stamp.is_file() and (dist / "lib").is_dir() and (dist / "plugins").is_dir()):
        return False
    if os.environ.get("GRAPHRAG_NEO4J_DIST"):
        return True  # an externally provided layout is never rebuilt
    root = project_root()
    return stamp.stat().st_mtime >= max(_sources_mtime(root / "procedures"), _packaged_cypher_mtime(root))


# The Cypher files the plugin jar carries (graphrag.search runs them): procedures/graphrag-procedures/pom.xml
PACKAGED_CYPHER = (
    "retrieval/vector.cypher",
    "retrieval/hybrid.cypher",
    "retrieval/question_entities.cypher",
    "retrieval/entity_weights.cypher",
    "retrieval/about_names.cypher",
    "retrieval/about_family.cypher",
)


def _packaged_cypher_mtime(root: Path) -> float:
    queries = root / "cypher" / "queries"
    return max((p.stat().st_mtime for p in (queries / name for name in PACKAGED_CYPHER) if p.is_file()), default=0.0)


def ensure_built(echo: Callable[[str], object] = print) -> Path:
    """Run ``mvn -q -DskipTests package`` if the server layout is missing or stale.

    Returns :func:`dist_dir`. Raises :class:`GraphragError` (one line) when Java 17 or
    Maven is missing or the build fails; the full Maven output is in the build log.
    """
    if _is_built():
        return dist_dir()
    java = _find_java()
    mvn = os.environ.get("GRAPHRAG_MVN") or shutil.which("mvn")
    if not mvn:
        raise GraphragError("Maven (mvn) is required to build the local Neo4j server; install Maven 3.8+")
    root = project_root()
    log = _build_log()
    log.parent.mkdir(parents=True, exist_ok=True)
    lock_path = log.parent / "procedures-build.lock"
    with open(lock_path, "w") as lock:
        _lock(lock)
        try:
            if _is_built():  # another process built it while we waited for the lock
                return dist_dir()
            echo(
                "Building Neo4j server, APOC and GDS plugins with Maven "
                f"(first build downloads ~210 MB from Maven Central; log: {log})"
            )
            env = dict(os.environ, JAVA_HOME=str(_java_home(java)))
            cmd = [mvn, "-B", "-q", "-f", str(root / "procedures" / "pom.xml"), "-DskipTests", "package"]
            started = time.monotonic()
            with open(log, "w") as out:
                out.write("$ " + " ".join(cmd) + f"\n# JAVA_HOME={env['JAVA_HOME']}\n")
                out.flush()
                rc = subprocess.call(
                    cmd, cwd=root, env=env, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL
                )
            if rc != 0 or not (dist_dir() / "lib").is_dir():
                raise GraphragError(f"building the Neo4j server with Maven failed (exit {rc}); see {log}")
            (dist_dir() / BUILD_STAMP).write_text(f"built in {time.monotonic() - started:.0f}s\n")
            echo(f"Built {dist_dir()} in {time.monotonic() - started:.0f}s")
        finally:
            _unlock(lock)
    return dist_dir()


def _lock(fh) -> None:
    try:
        import fcntl

        fcntl.flock(fh, fcntl.LOCK_EX)
    except ImportError:  # pragma: no cover - non-POSIX
        pass


def _unlock(fh) -> None:
    try:
        import fcntl

        fcntl.flock(fh, fcntl.LOCK_UN)
    except ImportError:  # pragma: no cover
        pass


def versions() -> dict:
    """``{"neo4j", "apoc", "gds", ...}`` as assembled; falls back to procedures/pom.xml."""
    props = dist_dir() / VERSIONS_FILE
    if props.is_file():
        out = {}
        for line in props.read_text().splitlines():
            if "=" in line and not line.lstrip().startswith("#"):
                key, _, value = line.partition("=")
                out[key.strip()] = value.strip()
        return out
    pom = project_root() / "procedures" / "pom.xml"
    try:
        text = pom.read_text()
    except OSError as exc:
        raise GraphragError(f"cannot read Neo4j versions from {pom}: {exc}") from None
    out = {}
    for key, prop in (
        ("neo4j", "neo4j.version"),
        ("apoc", "apoc.version"),
        ("gds", "gds.version"),
        ("neo4j-browser", "neo4j-browser.version"),
    ):
        m = re.search(rf"<{re.escape(prop)}>([^<]+)</{re.escape(prop)}>", text)
        if m:
            out[key] = m.group(1).strip()
    return out


# --------------------------------------------------------------------------- config


def _size_bytes(size: str) -> int:
    m = re.fullmatch(r"\s*(\d+)\s*([kmgt]?)b?\s*", size.lower())
    if not m:
        raise GraphragError(f"invalid memory size {size!r}; use e.g. 512m or 2g")
    return int(m.group(1)) * 1024 ** "_kmgt".index(m.group(2) or "_")


def _initial_heap(heap: str) -> str:
    return heap if _size_bytes(heap) <= _size_bytes("256m") else "256m"


# Procedures that need access outside Neo4j's sandbox, and only those our Cypher calls:
# cypher/queries/sanity/counts.cypher (apoc.meta.stats) and retrieval/ppr.cypher (gds.util.asNode).
UNRESTRICTED_PROCEDURES = ("apoc.meta.stats", "gds.util.asNode")

# Addresses Cypher may not fetch from (LOAD CSV, apoc.load.*): this machine, private and
# link-local networks (cloud metadata services live at 169.254.169.254), carrier-grade NAT.
CYPHER_IP_BLOCKLIST = (
    "0.0.0.0/8",
    "127.0.0.0/8",
    "10.0.0.0/8",
    "172.16.0.0/12",
    "192.168.0.0/16",
    "169.254.0.0/16",
    "100.64.0.0/10",
    "::/128",
    "::1/128",
    "fc00::/7",
    "fe80::/10",
)

# APOC reads apoc.conf from the configuration folder; its defaults, made explicit.
APOC_CONF = (
    "apoc.import.file.enabled=false",
    "apoc.export.file.enabled=false",
    "apoc.import.file.use_neo4j_config=true",
    "apoc.trigger.enabled=false",
)


def _private(path: Path) -> None:
    """Owner-only access (0700): the instance home holds the data and the password hash."""
    try:
        path.chmod(0o700)
    except OSError as exc:
        raise GraphragError(f"cannot make {path} private (chmod 700): {exc.strerror}") from None


def _write_conf(inst: LocalInstance, home: Path, dist: Path) -> Path:
    http = inst.http_port is not None
    lines = [
        "# Written by graphrag (admin/neo4j_local.py) on every start; edits are overwritten.",
        f"server.directories.data={home / 'data'}",
        f"server.directories.logs={home / 'logs'}",
        f"server.directories.run={home / 'run'}",
        f"server.directories.import={home / 'import'}",
        f"server.directories.plugins={dist / 'plugins'}",
        "server.default_listen_address=127.0.0.1",
        "server.default_advertised_address=127.0.0.1",
        "server.bolt.enabled=true",
        f"server.bolt.listen_address=127.0.0.1:{inst.bolt_port}",
        f"server.bolt.advertised_address=127.0.0.1:{inst.bolt_port}",
        f"server.http.enabled={'true' if http else 'false'}",
    ]
    if http:
        lines += [
            f"server.http.listen_address=127.0.0.1:{inst.http_port}",
            f"server.http.advertised_address=127.0.0.1:{inst.http_port}",
            # Browser pages are served from this origin; no other site's script may call the API.
            f"dbms.security.http_access_control_allow_origin=http://127.0.0.1:{inst.http_port}",
        ]
    lines += [
        "server.https.enabled=false",
        "dbms.security.auth_enabled=true",
        f"dbms.security.procedures.unrestricted={','.join(UNRESTRICTED_PROCEDURES)}",
        "dbms.security.procedures.allowlist=apoc.*,gds.*,graphrag.*",
        f"internal.dbms.cypher_ip_blocklist={','.join(CYPHER_IP_BLOCKLIST)}",
        "dbms.security.allow_csv_import_from_file_urls=false",
        f"server.memory.heap.initial_size={_initial_heap(inst.heap)}",
        f"server.memory.heap.max_size={inst.heap}",
        f"server.memory.pagecache.size={inst.pagecache}",
        "db.tx_log.rotation.retention_policy=1 files",
        "db.tx_log.rotation.size=64M",
        "dbms.usage_report.enabled=false",
        # A transaction past its timeout is ended when the monitor next looks (default every 2 s):
        # looked at five times a second, a statement ends within its bound + 1 s.
        "db.transaction.monitor.check.interval=200ms",
        "",
    ]
    conf = home / "conf" / "neo4j.conf"
    conf.parent.mkdir(parents=True, exist_ok=True)
    conf.write_text("\n".join(lines))
    (conf.parent / "apoc.conf").write_text(
        "# Written by graphrag (admin/neo4j_local.py) on every start; edits are overwritten.\n"
        + "\n".join(APOC_CONF)
        + "\n"
    )
    return conf


def _java_command(inst: LocalInstance, java: Path, home: Path, dist: Path) -> list[str]:
    # Same classpath order as Neo4j's launcher: plugins first (GDS registers kernel
    # extensions through META-INF/services, which are only found on the classpath).
    classpath = os.pathsep.join([str(dist / "plugins" / "*"), str(dist / "lib" / "*")])
    return [
        str(java),
        f"-Xms{_initial_heap(inst.heap)}",
        f"-Xmx{inst.heap}",
        *JVM_FLAGS,
        *_embed_flags(home),
        "-cp",
        classpath,
        ENTRY_POINT,
        f"--home-dir={home}",
        f"--config-dir={home / 'conf'}",
    ]


def _embed_flags(home: Path) -> list[str]:
    """Where `graphrag.embed` finds the ONNX export of `graphrag models export` (the folder the
    Python side uses), and where DJL unpacks the tokenizer's native library (with the data)."""
    from graphrag_cypher.onnx_embedder import models_dir

    return [f"-Dgraphrag.models.dir={models_dir()}", f"-DDJL_CACHE_DIR={home / 'data' / 'graphrag-djl'}"]


def _has_data(home: Path) -> bool:
    databases = home / "data" / "databases"
    return (databases / "system").exists()


def _argument_file(value: str) -> str:
    """``value`` as the one positional argument in a picocli @-file: after "--" (so a value that
    starts with "-", as one in 64 random passwords does, is not read as an option), double-quoted,
    backslash-escaped, and a leading "@" doubled (picocli reads "@x" as another argument file,
    "@@x" as "@x")."""
    if value.startswith("@"):
        value = "@" + value
    escapes = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r", "\t": "\\t"}
    return '--\n"' + "".join(escapes.get(ch, ch) for ch in value) + '"\n'


def _set_initial_password(inst: LocalInstance, java: Path, home: Path, dist: Path) -> None:
    """What ``neo4j-admin dbms set-initial-password`` does; only before the first start.

    The password reaches the admin tool in an argument file (``@file``, read by its picocli
    command line), owner-only and deleted at once, never in argv where ``ps`` shows it."""
    env = dict(os.environ, NEO4J_HOME=str(home), NEO4J_CONF=str(home / "conf"))
    fd, args_path = tempfile.mkstemp(prefix="initial-password-", dir=home / "run")  # mode 0600
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as args:
            args.write(_argument_file(inst.password))
        cmd = [
            str(java),
            "-Dfile.encoding=UTF-8",
            "-cp",
            str(dist / "lib" / "*"),
            ADMIN_TOOL,
            "dbms",
            "set-initial-password",
            f"@{args_path}",
        ]
        res = subprocess.run(cmd, env=env, cwd=home, capture_output=True, text=True, timeout=120, umask=0o077)
    finally:
        Path(args_path).unlink(missing_ok=True)
    if res.returncode != 0:
        detail = " ".join((res.stderr or res.stdout).split())[:300]
        raise GraphragError(f"setting the initial Neo4j password failed: {detail}")


def _prepare_home(inst, echo) -> tuple[Path, Path]:
    """The built distribution and Java, with `inst`'s home folders (private) and config written."""
    home = inst.home_dir
    dist = ensure_built(echo=echo)
    java = _find_java()
    home.mkdir(mode=0o700, parents=True, exist_ok=True)
    _private(home)
    for sub in ("conf", "data", "logs", "run", "import"):
        (home / sub).mkdir(mode=0o700, parents=True, exist_ok=True)
    _write_conf(inst, home, dist)
    return dist, java


def admin_import(
    inst: LocalInstance,
    arguments: list[str],
    *,
    database: str = "neo4j",
    echo: Callable[[str], object] = print,
    timeout: float | None = None,
) -> dict:
    """``neo4j-admin database import full`` into `database` of the stopped instance `inst`, which
    it replaces (Community has one user database). `arguments` are the importer's input options
    (--nodes=..., --relationships=..., --input-type ...). Output goes to logs/import.log; a failure
    is one line with the importer's reason. Returns {"seconds", "log"}."""
    home = inst.home_dir
    if _alive(_read_pid(home), home):
        raise GraphragError(f"Neo4j at {home} is running: `neo4j-admin database import` needs it stopped")
    dist, java = _prepare_home(inst, echo)
    log = home / "logs" / "import.log"
    cmd = [
        str(java),
        f"-Xmx{inst.heap}",
        "-Dfile.encoding=UTF-8",
        "-cp",
        str(dist / "lib" / "*"),
        ADMIN_TOOL,
        "database",
        "import",
        "full",
        database,
        "--overwrite-destination=true",
        f"--report-file={home / 'logs' / 'import.report'}",
        *arguments,
    ]
    env = dict(os.environ, NEO4J_HOME=str(home), NEO4J_CONF=str(home / "conf"))
    env.pop("JAVA_OPTS", None)
    started = time.monotonic()
    with open(log, "w", opener=lambda path, flags: os.open(path, flags, 0o600)) as out:
        out.write("$ " + " ".join(cmd) + "\n")
        out.flush()
        try:
            rc = subprocess.call(
                cmd, cwd=home, env=env, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, timeout=timeout
            )
        except subprocess.TimeoutExpired:
            raise GraphragError(f"neo4j-admin database import ran over {timeout:.0f}s; see {log}") from None
    if rc != 0:
        raise GraphragError(f"neo4j-admin database import failed (exit {rc}): {_import_error(log)}; see {log}")
    return {"seconds": round(time.monotonic() - started, 1), "log": str(log)}


def _import_error(log: Path) -> str:
    """The importer's reason: the last "Caused by:" of its output, else its last line."""
    try:
        lines = [line.strip() for line in log.read_text(errors="replace").splitlines() if line.strip()]
    except OSError:
        return "no output"
    causes = [line[len("Caused by:") :].strip() for line in lines if line.startswith("Caused by:")]
    told = [line for line in lines if not line.startswith(("at ", "...", "$ "))]
    text = causes[-1] if causes else (told[-1] if told else "no output")
    return " ".join(text.split())[:300]


# --------------------------------------------------------------------------- processes


def _read_state(home: Path) -> dict:
    try:
        return json.loads(_state_file(home).read_text())
    except (OSError, ValueError):
        return {}


def _read_pid(home: Path) -> int | None:
    try:
        return int(_pid_file(home).read_text().strip())
    except (OSError, ValueError):
        return None


def _reap(pid: int) -> None:
    child = _CHILDREN.get(pid)
    if child is not None:
        if child.poll() is not None:
            _CHILDREN.pop(pid, None)
        return
    try:
        os.waitpid(pid, os.WNOHANG)
    except (ChildProcessError, OSError):
        pass


def _cmdline(pid: int) -> str | None:
    proc = Path(f"/proc/{pid}")
    if proc.is_dir():
        try:
            stat = (proc / "stat").read_text()
            if stat.rsplit(")", 1)[1].split()[0] == "Z":
                return None
            return (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except (OSError, IndexError):
            return None
    try:  # macOS and friends
        out = subprocess.run(["ps", "-o", "stat=,command=", "-p", str(pid)], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    text = out.stdout.strip()
    if not text or text.startswith("Z"):
        return None
    return text.split(None, 1)[1] if " " in text else text


def _alive(pid: int | None, home: Path) -> bool:
    """True if ``pid`` is a live Neo4j server of this home (guards against pid reuse)."""
    if not pid:
        return False
    _reap(pid)
    cmd = _cmdline(pid)
    return bool(cmd) and ENTRY_POINT in (cmd or "") and f"--home-dir={home}" in (cmd or "")


def _port_open(port: int, timeout: float = 1.0) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=timeout):
            return True
    except OSError:
        return False


def _port_free(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return not _port_open(port, timeout=0.3)


def _kill(pid: int, timeout: float) -> bool:
    """SIGTERM, wait up to ``timeout``, then SIGKILL the process group. True if forced."""
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        return False
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        _reap(pid)
        if _cmdline(pid) is None:
            _CHILDREN.pop(pid, None)
            return False
        time.sleep(0.25)
    for kill in (lambda: os.killpg(pid, signal.SIGKILL), lambda: os.kill(pid, signal.SIGKILL)):
        try:
            kill()
        except (ProcessLookupError, PermissionError, OSError):
            pass
    child = _CHILDREN.pop(pid, None)
    if child is not None:
        try:
            child.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass
    else:
        for _ in range(40):
            _reap(pid)
            if _cmdline(pid) is None:
                break
            time.sleep(0.25)
    return True


def _first_error(log: Path) -> str:
    """The root cause of the first ERROR in neo4j.log (last 'Caused by:' of its trace)."""
    try:
        lines = log.read_text(errors="replace").splitlines()
    except OSError:
        return ""
    for i, line in enumerate(lines):
        if " ERROR " not in line:
            continue
        cause = ""
        for follow in lines[i + 1 :]:
            if re.match(r"\d{4}-\d\d-\d\d[ T]", follow):  # next log entry
                break
            if follow.startswith("Caused by:"):
                cause = follow[len("Caused by:") :].strip()
        return " ".join((cause or line).split())[:240]
    return ""


def _check_driver(inst: LocalInstance) -> str | None:
    """None when ``RETURN 1`` works; "auth" on bad credentials; "retry" otherwise."""
    try:
        from neo4j import GraphDatabase
        from neo4j.exceptions import AuthError
    except ImportError:
        return None  # no driver installed: the TCP check has to do
    try:
        # Bounded, retry-free probe: execute_query would retry for up to 30s per call.
        with GraphDatabase.driver(
            inst.uri,
            auth=("neo4j", inst.password),
            connection_timeout=5,
            connection_acquisition_timeout=5,
            max_connection_pool_size=1,
        ) as driver:
            with driver.session() as session:
                record = session.run("RETURN 1 AS ok").single()
            return None if record is not None and record["ok"] == 1 else "retry"
    except AuthError:
        return "auth"
    except Exception:  # noqa: BLE001 - still starting (ServiceUnavailable, DatabaseUnavailable...)
        return "retry"


def _describe(inst: LocalInstance, home: Path, pid: int | None) -> dict:
    state = _read_state(home) if pid else {}
    bolt = state.get("bolt_port", inst.bolt_port)
    http = state.get("http_port", inst.http_port) if state else inst.http_port
    return {
        "running": pid is not None,
        "pid": pid,
        "bolt_port": bolt,
        "http_port": http,
        "home": str(home),
        "uri": f"bolt://127.0.0.1:{bolt}",
        "browser": f"http://127.0.0.1:{http}/browser/" if http else None,
        "log": str(log_path(inst)),
    }


def status(inst: LocalInstance) -> dict:
    """``{"running", "pid", "bolt_port", "http_port", "home", "uri", "log", "browser"}``."""
    home = inst.home_dir
    pid = _read_pid(home)
    return _describe(inst, home, pid if _alive(pid, home) else None)


def start(inst: LocalInstance, timeout: float = 120, echo: Callable[[str], object] = print) -> dict:
    """Start the instance (building the server first if needed) and wait until Bolt answers.

    Idempotent: a running instance is left alone (``already_running: True``).
    """
    home = inst.home_dir
    pid = _read_pid(home)
    if _alive(pid, home):
        state = _read_state(home)
        bolt = state.get("bolt_port", inst.bolt_port)
        deadline = time.monotonic() + timeout
        while not _port_open(bolt):  # possibly still starting (another caller)
            if time.monotonic() > deadline or not _alive(pid, home):
                raise Neo4jUnavailable(
                    f"Neo4j (pid {pid}) is running but did not answer on bolt://127.0.0.1:{bolt} "
                    f"within {timeout:.0f}s; see {log_path(inst)}"
                )
            time.sleep(0.5)
        return {"already_running": True, **_describe(inst, home, pid)}
    _pid_file(home).unlink(missing_ok=True)
    _state_file(home).unlink(missing_ok=True)

    if not inst.password:
        raise GraphragError("a password for the local Neo4j user 'neo4j' is required")
    fresh = not _has_data(home)
    if fresh and len(inst.password) < 8:
        raise GraphragError("the Neo4j password must be at least 8 characters long")
    ports = [("Bolt", inst.bolt_port)] + ([("HTTP", inst.http_port)] if inst.http_port else [])
    if inst.http_port is not None and inst.http_port == inst.bolt_port:
        raise GraphragError(f"Bolt and HTTP ports must differ (both {inst.bolt_port})")
    for name, port in ports:
        if not _port_free(port):
            raise GraphragError(
                f"{name} port {port} is already in use by another process; stop it or choose another port"
            )

    dist, java = _prepare_home(inst, echo)
    if fresh:
        _set_initial_password(inst, java, home, dist)

    console = home / "logs" / "console.log"
    cmd = _java_command(inst, java, home, dist)
    env = dict(os.environ, NEO4J_HOME=str(home), NEO4J_CONF=str(home / "conf"))
    env.pop("JAVA_OPTS", None)
    for name in [n for n in env if n.startswith("APOC_")]:
        env.pop(name)  # APOC lets environment variables override apoc.conf: ours applies
    echo(f"Starting Neo4j {versions().get('neo4j', '')} on {inst.uri} (home {home})")
    with open(console, "ab", opener=lambda path, flags: os.open(path, flags, 0o600)) as out:
        out.write(f"\n# {time.strftime('%Y-%m-%d %H:%M:%S')} $ {' '.join(cmd)}\n".encode())
        out.flush()
        # umask 077: the data, logs and auth files Neo4j writes are the owner's alone.
        proc = subprocess.Popen(
            cmd,
            cwd=home,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            close_fds=True,
            umask=0o077,
        )
    _CHILDREN[proc.pid] = proc
    _pid_file(home).write_text(f"{proc.pid}\n")
    _state_file(home).write_text(
        json.dumps(
            {"pid": proc.pid, "bolt_port": inst.bolt_port, "http_port": inst.http_port, "started_at": time.time()}
        )
    )

    started = time.monotonic()
    deadline = started + timeout
    log = home / "logs" / "neo4j.log"
    while True:
        code = proc.poll()
        if code is not None:
            _CHILDREN.pop(proc.pid, None)
            _pid_file(home).unlink(missing_ok=True)
            _state_file(home).unlink(missing_ok=True)
            err = _first_error(log)
            raise Neo4jUnavailable(
                f"Neo4j exited during start-up (exit code {code}); see {log_path(inst)}" + (f": {err}" if err else "")
            )
        if _port_open(inst.bolt_port):
            check = _check_driver(inst)
            if check is None:
                break
            if check == "auth":
                stop(inst, timeout=30)
                raise Neo4jUnavailable(
                    f"Neo4j on {inst.uri} rejected the password for user 'neo4j'; {home / 'data'} "
                    "was initialised with another password (delete that folder to reset it)"
                )
        if time.monotonic() > deadline:
            stop(inst, timeout=15)
            raise Neo4jUnavailable(f"Neo4j did not answer on {inst.uri} within {timeout:.0f}s; see {log_path(inst)}")
        time.sleep(0.5)
    result = {"already_running": False, **_describe(inst, home, proc.pid)}
    result["started_in_s"] = round(time.monotonic() - started, 1)
    return result


def stop(inst: LocalInstance, timeout: float = 60) -> dict:
    """Stop the instance (SIGTERM, then SIGKILL after ``timeout``). Idempotent."""
    home = inst.home_dir
    pid = _read_pid(home)
    running = _alive(pid, home)
    forced = _kill(pid, timeout) if running and pid else False
    _pid_file(home).unlink(missing_ok=True)
    _state_file(home).unlink(missing_ok=True)
    return {"was_running": running, "pid": pid if running else None, "forced": forced}


if __name__ == "__main__":  # pragma: no cover - manual helper: python -m graphrag_cypher.admin.neo4j_local
    action = sys.argv[1] if len(sys.argv) > 1 else "status"
    instance = LocalInstance(password=os.environ.get("NEO4J_PASSWORD", ""))
    fn = {"start": start, "stop": stop, "status": status}[action]
    print(json.dumps(fn(instance), indent=2, default=str))


# --------------------------------------------------------------------------- throw-away instances


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@dataclass(frozen=True)
class Ephemeral:
    """A started instance and how to reach it (what :func:`ephemeral` yields)."""

    instance: LocalInstance
    uri: str
    username: str
    password: str

    def env(self, **extra: str) -> dict[str, str]:
        """NEO4J_URI / NEO4J_USERNAME / NEO4J_PASSWORD for this instance (plus `extra`)."""
        return {"NEO4J_URI": self.uri, "NEO4J_USERNAME": self.username, "NEO4J_PASSWORD": self.password, **extra}

    def settings(self, base=None):
        """`base` (default: the configuration without `.env` or environment) pointed at this instance."""
        from dataclasses import replace

        from graphrag_cypher.config import load_settings

        return replace(
            base if base is not None else load_settings({}),
            neo4j_uri=self.uri,
            neo4j_username=self.username,
            neo4j_password=self.password,
            neo4j_database="neo4j",
        )


def _kept_password(path: Path) -> str:
    """The password kept in `path` (0600 from its first byte), made on first use."""
    import secrets

    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        with os.fdopen(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "w") as handle:
            handle.write(secrets.token_urlsafe(18))
    return path.read_text().strip()


@contextmanager
def ephemeral(
    home: Path | str | None = None,
    *,
    keep: bool = False,
    heap: str = "768m",
    password_file: Path | str | None = None,
    http: bool = False,
    timeout: float = 240,
    echo: Callable[[str], object] = lambda *_: None,
):
    """A local Neo4j for tests, benchmarks and evaluations; yields an :class:`Ephemeral`.

    Without `home`, a fresh instance in a new temporary folder with a random password, on free
    ports; on exit it is stopped and its folder deleted (kept with ``keep=True``). With a named
    `home`, the instance there is reused across runs: its password is kept in `password_file`
    (default ``<home>/graphrag-password``, mode 0600), an instance already running there is
    used as it is, and the folder is never deleted; on exit it is stopped unless ``keep=True``.
    """
    temporary = home is None
    home_path = Path(tempfile.mkdtemp(prefix="graphrag-neo4j-")) if home is None else Path(home)
    if not temporary and not home_path.is_absolute():
        home_path = project_root() / home_path
    if temporary:
        import secrets

        password = secrets.token_urlsafe(16)
    else:
        password = _kept_password(Path(password_file) if password_file else home_path / "graphrag-password")
    instance = LocalInstance(
        home=home_path, bolt_port=free_port(), http_port=free_port() if http else None, password=password, heap=heap
    )
    try:
        state = status(instance) if not temporary else {}
        if state.get("running"):
            instance.bolt_port = state["bolt_port"]
        else:
            start(instance, timeout=timeout, echo=echo)
        yield Ephemeral(instance, instance.uri, "neo4j", password)
    finally:
        if not keep:
            stop(instance)
            if temporary:
                shutil.rmtree(home_path, ignore_errors=True)
