"""A progress display for long loads: counts on stderr, error lines above it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Self

import click

if TYPE_CHECKING:
    from rich.progress import Progress, TaskID


class LoadProgress:
    def __init__(self, title: str, enabled: bool = True):
        self.title, self.enabled = title, enabled
        self._progress: Progress | None = None
        self._task: TaskID | None = None

    def __enter__(self) -> Self:
        if self.enabled:
            from rich.console import Console
            from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

            console = Console(stderr=True)
            if not console.is_terminal:
                # Off a terminal only the last frame would be printed, cut at 80 columns: the
                # summary line after the load says it whole, and errors are plain lines.
                return self
            self._progress = Progress(
                SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn(), console=console, transient=False
            )
            self._progress.start()
            self._task = self._progress.add_task(self.title)
        return self

    def __exit__(self, *exc) -> None:
        if self._progress:
            self._progress.stop()

    def update(self, stats) -> None:
        if self._progress:
            assert self._task is not None  # set together with _progress
            done = stats.created + stats.updated + stats.unchanged
            self._progress.update(
                self._task,
                description=(
                    f"{self.title}: {done} document(s) ({stats.created} new, {stats.updated} updated, "
                    f"{stats.unchanged} unchanged, {stats.failed} failed), {stats.chunks_created} chunk(s)"
                ),
            )

    def error(self, line: str) -> None:
        if self._progress:
            from rich.text import Text

            from graphrag_cypher.terminal import rich_text

            self._progress.console.print(Text.assemble(("error", "red"), " ", rich_text(line)), highlight=False)
        else:
            from graphrag_cypher.terminal import safe_text

            click.echo(f"error: {safe_text(line)}", err=True)


class RequestProgress(LoadProgress):
    """Requests to an LLM on stderr: units done of all, requests sent, cache hits, time left;
    error lines above it (as a load's)."""

    def __enter__(self) -> Self:
        if self.enabled:
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

            console = Console(stderr=True)
            if console.is_terminal:  # off a terminal the summary after the run says it all
                self._progress = Progress(
                    TextColumn("{task.description}"),
                    BarColumn(),
                    MofNCompleteColumn(),
                    TextColumn("ETA"),
                    TimeRemainingColumn(),
                    console=console,
                )
                self._progress.start()
                self._task = self._progress.add_task(self.title, total=None)
        return self

    def requests(self, done: int, total: int, requests: int, cached: int) -> None:
        if self._progress:
            assert self._task is not None  # set together with _progress
            self._progress.update(
                self._task,
                completed=done,
                total=total,
                description=f"{self.title}: {requests} request(s), {cached} from the cache",
            )


class CountProgress(RequestProgress):
    """Work counted in items (chunks): done of all and the time left, as RequestProgress shows it."""

    def update(self, done: int, total: int | None) -> None:  # type: ignore[override]
        if self._progress:
            assert self._task is not None  # set together with _progress
            self._progress.update(self._task, completed=done, total=total or None)
