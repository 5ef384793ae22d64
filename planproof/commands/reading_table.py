"""The reference reading in an evaluate command's terminal output: its figures beside
planproof's (the paper's metric names, in percent) and the corrections by class that
lead from one to the other, as ``planproof reproduce eai`` shows them."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def _fmt(v: Any) -> str:
    return "—" if not isinstance(v, int | float) else f"{v:.1f}"


def print_readings(module: str, summary: Mapping[str, Any], reading: str) -> None:
    """The readings table (``reading`` both or reference) and the corrections; a note
    where the module has no reference reading; nothing for ``--reading planproof`` on a
    module that has one."""
    from rich.table import Table

    from planproof.commands.console import stdout_console
    from planproof.runs.figures import figures

    console = stdout_console()
    note = summary.get("reference_reading_note")
    if summary.get("reference_reading") is None:
        if note:
            console.print(f"note: {note}", markup=False)
        return
    if reading == "planproof":
        return
    ref = summary.get("reference_reading_figures") or {}
    own = figures(module, summary)
    if module == "transition-modeling":
        own = {k: v for k, v in own.items() if not k.endswith("_planner_success")}
    names = list(dict.fromkeys([*ref, *(own if reading == "both" else ())]))
    table = Table(
        title="Reference reading (virtualhome-eval 0.1.1's rules)"
        + (" beside planproof's" if reading == "both" else ""),
        title_justify="left",
    )
    table.add_column("figure (%)")
    table.add_column("reference reading", justify="right")
    if reading == "both":
        table.add_column("planproof", justify="right")
        table.add_column("planproof − ref.", justify="right")
    for name in names:
        cells = [name.replace("_", " "), _fmt(ref.get(name))]
        if reading == "both":
            a, b = own.get(name), ref.get(name)
            diff = a - b if isinstance(a, int | float) and isinstance(b, int | float) else None
            cells += [_fmt(a), "—" if diff is None else f"{diff:+.1f}"]
        table.add_row(*cells)
    console.print(table)
    if note:
        console.print(f"note: {note}", markup=False)
    _print_corrections(summary.get("corrections"))


def _print_corrections(table_doc: Any) -> None:
    """Per class of docs/reference-differences.md: the tasks it moves and the counts it
    moves (planproof minus the reference reading); the total is the whole gap."""
    if not isinstance(table_doc, Mapping):
        return
    from rich.table import Table

    from planproof.commands.console import stdout_console
    from planproof.report.leaderboard import correction_cell

    deltas = tuple(table_doc.get("deltas", ("tp", "fp", "fn")))
    classes = table_doc.get("classes", {})
    table = Table(
        title="Corrections, reference reading → planproof (planproof minus the reference "
        "reading; docs/reference-differences.md)",
        title_justify="left",
    )
    table.add_column("class")
    table.add_column("moves")
    for cls, row in classes.items():
        table.add_row(cls, correction_cell(row, deltas))
    table.add_row("total", correction_cell(table_doc.get("total", {}), deltas))
    table.add_row("unexplained", str(int(table_doc.get("unexplained", 0))))
    stdout_console().print(table)


def reading_line(module: str, summary: Mapping[str, Any]) -> str | None:
    """One line of the reference reading's headline figures (``planproof run``), or the
    note of a module without one; None when the summary has neither."""
    reading = summary.get("reference_reading")
    note = summary.get("reference_reading_note")
    if not isinstance(reading, Mapping):
        return f"note: {note}" if note else None
    figs = reading.get("logic_form", summary.get("reference_reading_figures"))
    if not isinstance(figs, Mapping):
        figs = {}
    if module == "goal-interpretation":
        shown = {"overall F1": figs.get("overall_f1")}
    elif module == "transition-modeling":
        shown = {
            k.removesuffix("_f1").replace("_", " ") + " F1": v
            for k, v in figs.items()
            if k.endswith("_f1")
        }
    else:
        shown = {
            "task success": figs.get("task_success"),
            "executable": figs.get("execution_success"),
        }
    line = "reference reading (virtualhome-eval 0.1.1's rules): " + (
        ", ".join(f"{k} {_fmt(v)}" + (" %" if v is not None else "") for k, v in shown.items())
        or "no figure"
    )
    grammar = reading.get("trajectory_evaluation", {})
    grammar = grammar.get("grammar_error", {}) if isinstance(grammar, Mapping) else {}
    hallucinated = grammar.get("hallucination") if isinstance(grammar, Mapping) else None
    if isinstance(hallucinated, int | float) and hallucinated >= HALLUCINATION_HINT:
        line += (
            f" — it calls {_fmt(hallucinated)} % of the answers hallucinations: the reference"
            " reads object names without ids (its own prompt's format), so answers written as"
            " name, id pairs, as planproof's prompt asks, fail its name check"
            " (docs/action-sequencing.md, 'Your own answers')"
        )
    return line


HALLUCINATION_HINT = 50.0
"""Above this share of hallucinations in the reference reading, ``planproof run`` says why
such a figure usually means a format mismatch, not a worse model."""
