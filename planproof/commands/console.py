"""The one rich console every command prints its tables with.

Two rules, in one place so that no command forgets them:

- on a pipe or a file (not a terminal) there is no width to follow, and rich's default
  of 80 columns squashed wide tables to one letter per cell; the width is then
  :data:`PIPED_WIDTH` unless ``COLUMNS`` says otherwise;
- a closed pipe (``planproof ... | head -1``) raises :class:`BrokenPipeError`, which
  ``planproof.cli.main`` handles once for every command (exit 0, nothing on stderr):
  rich's own handler exits with status 1 instead.

rich is imported when a console is made, not when this module is (start-up stays light).
"""

from __future__ import annotations

import os
from functools import cache
from typing import Any

PIPED_WIDTH = 200
"""Width of printed tables on a pipe or file (unless ``COLUMNS`` is set): wide enough for
the widest table (goal interpretation's nine figures, the failing-tasks tables)."""


@cache
def _console_class() -> Any:
    from rich.console import Console

    class PipeConsole(Console):
        def on_broken_pipe(self) -> None:
            self.quiet = True  # nothing more is written to the closed pipe
            raise BrokenPipeError("stdout was closed by the reader")

    return PipeConsole


def stdout_console(**options: Any) -> Any:
    """A rich ``Console`` on stdout with the two rules above (``options`` go to rich)."""
    console = _console_class()(**options)
    if not console.is_terminal and "COLUMNS" not in os.environ and "width" not in options:
        console.width = PIPED_WIDTH
    return console
