"""The HTML report over run directories (``planproof report RUN_DIR... -o report.html``):
paper-style tables per module and dataset with models side by side, error-taxonomy and
goal-type charts, and a per-task drill-down. Reads only the files a run wrote; never
imports an LLM client or a planner."""

from planproof.report.html import build_report, render_runs, write_report
from planproof.report.load import ReportError, Run
from planproof.report.results_dirs import find_run_dirs, load_run, load_runs

__all__ = [
    "ReportError",
    "Run",
    "build_report",
    "find_run_dirs",
    "load_run",
    "load_runs",
    "render_runs",
    "write_report",
]
