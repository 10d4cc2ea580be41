"""A real MediaWiki for tests: Debian's packages, SQLite in a temp folder, PHP's built-in server.

`MediaWiki.install()` runs the wiki's own maintenance/install.php, `import_xml()` its
importDump.php, and `serve()` starts `php -S` on a free 127.0.0.1 port. A proxy in front of
it (`ThrottlingProxy`) answers 429, maxlag or 503 when told to, and records when each
request came.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import threading
import time
import urllib.parse
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

MEDIAWIKI = Path("/usr/share/mediawiki")
INSTALL_LINE = "apt-get install -y mediawiki php-cli php-sqlite3"


def missing() -> str | None:
    """Why a real MediaWiki cannot run here (None when it can)."""
    if not shutil.which("php"):
        return f"php is not installed ({INSTALL_LINE})"
    if not (MEDIAWIKI / "maintenance" / "install.php").is_file():
        return f"MediaWiki is not installed ({INSTALL_LINE})"
    probe = subprocess.run(["php", "-m"], capture_output=True, text=True)
    if "pdo_sqlite" not in probe.stdout:
        return f"PHP's SQLite module is missing ({INSTALL_LINE})"
    return None


class MediaWiki:
    def __init__(self, folder: Path, dbname: str, sitename: str):
        from graphrag_cypher.admin.neo4j_local import free_port

        self.folder, self.dbname, self.sitename = folder, dbname, sitename
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/api.php"
        self.config = folder / "LocalSettings.php"
        self.process: subprocess.Popen | None = None

    def _php(self, *args: str, stdin: bytes | None = None) -> None:
        env = dict(os.environ, MW_CONFIG_FILE=str(self.config))
        done = subprocess.run(["php", *args], capture_output=True, env=env, input=stdin, timeout=300)
        if done.returncode != 0:
            raise RuntimeError(f"php {args[0]} failed: {done.stdout.decode()[-800:]} {done.stderr.decode()[-800:]}")

    def install(self) -> MediaWiki:
        self.folder.mkdir(parents=True, exist_ok=True)
        self._php(
            str(MEDIAWIKI / "maintenance" / "install.php"),
            "--dbtype=sqlite",
            f"--dbpath={self.folder / 'db'}",
            f"--dbname={self.dbname}",
            f"--confpath={self.folder}",
            "--scriptpath=",
            f"--server=http://127.0.0.1:{self.port}",
            "--pass=Test-password-" + os.urandom(6).hex(),
            "--lang=en",
            self.sitename,
            "admin",
        )
        with self.config.open("a", encoding="utf-8") as handle:
            handle.write("\n$wgMainCacheType = CACHE_NONE;\n$wgJobRunRate = 0;\n$wgShowExceptionDetails = true;\n")
        return self

    def import_xml(self, path: Path, updates: bool = True) -> float:
        """importDump.php; without `updates` the link tables are not rebuilt (much faster;
        the wikitext, revisions and titles the API loader reads are all there). Seconds taken."""
        started = time.monotonic()
        args = [str(MEDIAWIKI / "maintenance" / "importDump.php"), f"--conf={self.config}", str(path)]
        if not updates:
            args.insert(1, "--no-updates")
        self._php(*args)
        return time.monotonic() - started

    def serve(self) -> MediaWiki:
        env = dict(os.environ, MW_CONFIG_FILE=str(self.config))
        self.process = subprocess.Popen(
            ["php", "-S", f"127.0.0.1:{self.port}", "-t", str(MEDIAWIKI)],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                self.api(action="query", meta="siteinfo")
                return self
            except OSError:
                time.sleep(0.2)
        raise RuntimeError("the PHP server did not answer within 30 s")

    def api(self, method: str = "GET", **params) -> dict:
        params = {"format": "json", "formatversion": "2", **params}
        data = urllib.parse.urlencode(params).encode()
        if method == "GET":
            request = urllib.request.Request(f"{self.url}?{data.decode()}")
        else:
            request = urllib.request.Request(self.url, data=data, method="POST")
        with urllib.request.urlopen(request, timeout=30) as response:
            return json.loads(response.read())

    def edit(self, title: str, text: str) -> dict:
        """An anonymous edit through the API (a fresh install lets anyone edit)."""
        token = self.api(action="query", meta="tokens")["query"]["tokens"]["csrftoken"]
        result = self.api("POST", action="edit", title=title, text=text, token=token, summary="test edit")
        if result.get("edit", {}).get("result") != "Success":
            raise RuntimeError(f"edit failed: {result}")
        return result["edit"]

    def close(self) -> None:
        if self.process:
            self.process.terminate()
            self.process.wait(10)


class ThrottlingProxy:
    """Forwards GETs to `target`; `script` is a list of answers for the next requests
    ("429", "maxlag", "503"), then it forwards. `fail_after`: every request after that
    many gets a 503 (a wiki that went away mid-run). Records each request's time."""

    def __init__(self, target: str, script: list[str] | None = None, fail_after: int | None = None):
        self.target, self.script, self.fail_after = target, list(script or []), fail_after
        self.log: list[tuple[float, str, str]] = []  # (time, answer, query)
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                query = self.path.split("?", 1)[1] if "?" in self.path else ""
                if proxy.script:
                    answer = proxy.script.pop(0)
                elif proxy.fail_after is not None and len(proxy.log) >= proxy.fail_after:
                    answer = "503"
                else:
                    answer = "ok"
                proxy.log.append((time.monotonic(), answer, query))
                if answer == "ok":
                    with urllib.request.urlopen(f"{proxy.target}?{query}", timeout=30) as upstream:
                        body = upstream.read()
                    self._send(200, body)
                elif answer == "maxlag":
                    error = {"code": "maxlag", "text": "Waiting for 10.0.0.1: 7 seconds lagged.", "data": {"lag": 7}}
                    self._send(200, json.dumps({"errors": [error]}).encode(), retry_after="1")
                else:
                    self._send(int(answer), b'{"error": "slow down"}', retry_after="1")

            def _send(self, status: int, body: bytes, retry_after: str | None = None):
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                if retry_after:
                    self.send_header("Retry-After", retry_after)
                self.end_headers()
                self.wfile.write(body)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/api.php"
        threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
