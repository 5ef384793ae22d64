"""Progress bars on stderr, only on a terminal: the one of ``planproof run`` (done /
total, rate, ETA and running cost) and :func:`progress_bar` for every other long step
(scoring, planning, data conversion), so nothing runs for minutes without a sign."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any


def on_terminal() -> bool:
    """Progress is drawn only when stderr is a terminal: piped output stays clean."""
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False


@contextmanager
def progress_bar(title: str, total: int | None) -> Iterator[Callable[..., None]]:
    """A transient rich bar on stderr while the block runs; yields ``advance(n=1)``.
    Off a terminal it draws nothing and rich is not imported."""
    if not on_terminal():
        yield lambda n=1: None
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

    def start(self, total: int, cached: int) -> None:
        if not on_terminal():
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
