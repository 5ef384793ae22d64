"""Progress on stderr: the bar of ``planproof run`` (done / total, rate, ETA and running
cost) and :func:`progress_bar` for every other long step (scoring, planning, data
conversion), so nothing runs for minutes without a sign.

On a terminal a rich bar is drawn. Off a terminal (a log file, CI) a long step of known
size (at least :data:`LOG_MIN_TOTAL` items) writes one plain line per tenth of the work,
``scoring 338 tasks: 34/338 (10 %), 12 s``; shorter steps stay silent. The rule counts
work, not time, so what a log holds does not depend on the machine's load."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

LOG_MIN_TOTAL = 100
"""Off a terminal, only steps of at least this many items write progress lines."""


class LogLines:
    """Plain progress lines for a log: one per tenth of ``total`` (see the module doc)."""

    def __init__(self, title: str, total: int | None) -> None:
        self.title = title
        self.total = total if total is not None and total >= LOG_MIN_TOTAL else None
        self.done = 0
        self._tenth = 0
        self._start = time.monotonic()

    def advance(self, n: int = 1) -> None:
        if self.total is None:
            return
        self.done += n
        tenth = min(10, self.done * 10 // self.total)
        if tenth > self._tenth:
            self._tenth = tenth
            seconds = time.monotonic() - self._start
            print(
                f"{self.title}: {self.done}/{self.total} ({10 * tenth} %), {seconds:.0f} s",
                file=sys.stderr,
                flush=True,
            )


def on_terminal() -> bool:
    """Progress is drawn only when stderr is a terminal: piped output stays clean."""
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False


@contextmanager
def progress_bar(title: str, total: int | None) -> Iterator[Callable[..., None]]:
    """A transient rich bar on stderr while the block runs; yields ``advance(n=1)``.
    Off a terminal rich is not imported: a long step writes :class:`LogLines`."""
    if not on_terminal():
        yield LogLines(title, total).advance
        return
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        SpinnerColumn,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    bar = Progress(
        SpinnerColumn(),
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
        console=Console(stderr=True),
        transient=True,
    )
    task = bar.add_task(title, total=total)
    with bar:
        yield lambda n=1: bar.advance(task, n)


def running_total(advance: Callable[..., None]) -> Callable[[int], None]:
    """``advance`` driven by a running total, as ``map_batched``'s ``on_done(finished so
    far)`` reports it."""
    done = 0

    def to(total: int) -> None:
        nonlocal done
        advance(total - done)
        done = total

    return to


class RichProgress:
    """Implements the runner's ``Progress`` protocol on stderr (quiet when not a tty)."""

    def __init__(self, title: str) -> None:
        self.title = title
        self._bar: Any = None
        self._task: Any = None
        self._failed = 0
        self._done = 0
        self._log: LogLines | None = None

    def start(self, total: int, cached: int) -> None:
        if not on_terminal():
            self._log = LogLines(self.title, total)
            self._log.advance(cached)
            return
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

        self._bar = Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[rate]}"),
            TimeElapsedColumn(),
            TextColumn("ETA"),
            TimeRemainingColumn(),
            TextColumn("{task.fields[cost]} · {task.fields[info]}"),
            console=Console(stderr=True),
            transient=False,
        )
        self._bar.start()
        self._task = self._bar.add_task(
            self.title,
            total=total,
            completed=cached,
            rate="",
            cost="$0.0000",
            info=f"{cached} cached",
        )
        self._cached = cached

    def advance(self, call: Any, cost_usd: float) -> None:
        if self._bar is None:
            if self._log is not None:
                self._log.advance()
            return
        self._done += 1
        if call.completion is None:
            self._failed += 1
        task = self._bar.tasks[0]
        elapsed = task.elapsed or 0.0
        rate = f"{self._done / elapsed:.1f}/s" if elapsed > 0 else ""
        self._bar.update(
            self._task,
            advance=1,
            rate=rate,
            cost=f"${cost_usd:.4f}",
            info=f"{self._cached} cached, {self._failed} failed"
            if self._failed
            else f"{self._cached} cached",
        )

    def stop(self) -> None:
        if self._bar is not None:
            self._bar.stop()
