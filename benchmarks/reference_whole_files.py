"""The published reference evaluator on whole files, as the paper ran it, resumably.

Run ``python benchmarks/reference_whole_files.py --resume`` (niced, in the background:
``nohup python benchmarks/reference_whole_files.py --resume > benchmarks/results/
whole-files.log 2>&1 &``). It runs virtualhome-eval 0.1.1's unmodified ``evaluate_results``
(``reference_published_driver.py``, in the reference's own venvs built by
``reference_env.py``) on every published VirtualHome file that the stored reference column
has only as a sample, in *batches* of consecutive tasks, each batch one ``nice -n 19``
subprocess with ``PYTHONHASHSEED=2`` (the seed with which the reference reproduces the
paper's goal-interpretation figures: GPT-4o overall F1 36.45; seeds 0, 1 or unset give
36.53) and, for transition modeling, Fast Downward 23.06 (``up-fast-downward==0.4.1``,
flavour ``published-transition-modeling-fd2306``: with it the reference reproduces the
paper's Table 15 GPT-4o row; 26.6 rejects operators naming undeclared constants).

After every batch the per-task verdicts, error types and the batch's own summary are
written to :data:`planproof.data.reference_figures.WHOLE_FILES_PATH` (compact JSON in the
repository, with the provenance: package versions, Fast Downward version, seed, command,
date), so an interrupted run loses one batch at most and ``--resume`` (the default) goes on
with the first batch not yet stored, in this or a later session. Priority: BEHAVIOR
transition modeling's logic form (one planner-less run per file, seconds), action
sequencing (quick per task), then the action-sequencing files already whole (per-task
verdicts and error types under the paper's seed), subgoal decomposition, VirtualHome
transition modeling's planner, BEHAVIOR's planner.

A file is *whole* once all its batches are stored. Its figures are then the reference's
for the whole file:

- action sequencing: the reference's summary recomputed from the per-task counters the
  driver observes (``counts``, ``matched``, ``goals``, ``executable``, ``success``) with the
  evaluator's own formula (:func:`as_summary`); the formula is checked against every
  batch's own summary, and a batch it does not reproduce stops the run;
- subgoal decomposition: the reference itself, run once more on the whole file with every
  task's stored ``error_info`` entry in place (its evaluator skips tasks already in that
  file and computes the summary from it: ``simulate_one_llm``);
- transition modeling: the planner-success rate per category recomputed from the per-task
  ``planner_success`` and ``categories`` (checked against every batch as above); the
  logic-form figures stay those of the whole-file run with the planner disabled.

Subgoal decomposition runs with one worker (``simulate_one_llm``'s ``worker_num=1``,
in-process): its ``random.choice`` on a disjunction draws from ``random`` seeded 123 at
import, so the draws are reproducible given the batch (the paper's run with 5 worker
processes drew in whatever order its workers took the tasks).
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import datetime as dt
import fcntl
import hashlib
import json
import resource
import shutil
import sys
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from reference_env import (
    FD2306_REQUIREMENT,
    PUBLISHED,
    PUBLISHED_TM_FD2306,
    Flavour,
    ReferenceUnavailableError,
    ensure_reference_env,
    run_reference_published,
)

from planproof.boundary import replace_text
from planproof.data.published import VHE_WHEEL, published_files
from planproof.data.reference_figures import WHOLE_FILES_PATH

HASH_SEED = "2"
"""The ``PYTHONHASHSEED`` with which the reference reproduces the paper (module docstring)."""
NICE = 19
BEHAVIOR = "transition-modeling-behavior"
"""The data file's module name for BEHAVIOR transition modeling."""
LOGIC_FORM = "logic-form"
"""A BEHAVIOR cell's whole-file run with the planner disabled (its logic-form figures)."""
BATCH = {
    "action-sequencing": 19,
    "subgoal-decomposition": 13,
    "transition-modeling": 8,
    BEHAVIOR: 10,
}
"""Tasks per batch: one subprocess each (342 = 18 x 19, 338 = 26 x 13, 296 = 37 x 8,
100 = 10 x 10)."""
ORDER = ("action-sequencing", "subgoal-decomposition", "transition-modeling", BEHAVIOR)
PRIORITY = (
    (BEHAVIOR, LOGIC_FORM),
    ("action-sequencing", "batches"),
    ("action-sequencing", "already-whole"),
    ("subgoal-decomposition", "batches"),
    ("transition-modeling", "batches"),
    (BEHAVIOR, "batches"),
)
"""The order the runs are made in (module docstring)."""
NEAR_LIMIT = 100.0
"""``--status`` counts the BEHAVIOR holistic calls that took at least this many wall seconds
(half the reference's 200 s limit): verdicts a loaded machine might have turned."""
SKIPPED_SINGLE_VARIATE = "single-variate planner tests (no figure)"
"""A BEHAVIOR planner batch run with ``--skip-single-variate`` says so (its ``skipped``):
the reference's planner call per predicted operator found in gold, on the gold domain
with that one operator swapped in, feeds only counters its summary never reads
(``task_variate_control_*``, ``action_variate_control``); the holistic call, whose verdict
is the planner success, runs unchanged (``reference_published_driver.py``)."""
ALREADY_WHOLE = {
    "action-sequencing": ("claude-3-haiku-20240307", "claude-3-opus-20240229"),
}
"""Cells whose stored figures are already the whole file's: run last (per-task verdicts)."""
WORKDIR = Path(__file__).resolve().parent / "results" / "whole-files-work"
FORMAT = 1
NOTHING_LEFT = 10
"""Exit status when every batch is already stored (``--loop`` stops on it)."""
COMMAND = "python benchmarks/reference_whole_files.py --resume"
TM_FIGURE_CATEGORIES = (
    "object_states",
    "object_orientation",
    "object_affordance",
    "spatial_relations",
    "non-spatial_relations",
)


class AggregationMismatch(RuntimeError):
    """A batch's own summary differs from the one recomputed from its per-task verdicts."""


@dataclass(frozen=True)
class Unit:
    """One batch: tasks ``[index * size, (index + 1) * size)`` of one published file, or
    (``index`` -1, :data:`LOGIC_FORM`) a BEHAVIOR file's whole logic-form run."""

    module: str
    model: str
    path: Path
    index: int
    size: int

    @property
    def key(self) -> str:
        return LOGIC_FORM if self.index < 0 else str(self.index)

    @property
    def dataset(self) -> str:
        return "behavior" if self.module == BEHAVIOR else "virtualhome"

    @property
    def evaluator(self) -> str:
        """The reference module that scores it (planproof's name)."""
        return "transition-modeling" if self.module == BEHAVIOR else self.module


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _now() -> str:
    return dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


# ------------------------------------------------------------------------- the data file
def load(path: Path = WHOLE_FILES_PATH) -> dict[str, Any]:
    try:
        doc: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        doc = {"format": FORMAT, "cells": {}}
    return doc


def save(doc: Mapping[str, Any], path: Path = WHOLE_FILES_PATH) -> None:
    """Compact JSON, one line per (module, model) cell, so a diff names the cells."""
    lines = ["{", f' "format": {json.dumps(doc["format"])},']
    lines.append(f' "provenance": {json.dumps(doc.get("provenance", {}), sort_keys=True)},')
    lines.append(' "cells": {')
    modules = sorted(doc["cells"])
    for i, module in enumerate(modules):
        cells = doc["cells"][module]
        lines.append(f"  {json.dumps(module)}: {{")
        models = sorted(cells)
        for j, model in enumerate(models):
            comma = "," if j < len(models) - 1 else ""
            body = json.dumps(cells[model], sort_keys=True, separators=(",", ":"))
            lines.append(f"   {json.dumps(model)}: {body}{comma}")
        lines.append("  }" + ("," if i < len(modules) - 1 else ""))
    lines += [" }", "}"]
    path.parent.mkdir(parents=True, exist_ok=True)
    replace_text(path, "\n".join(lines) + "\n", durable=True)


def provenance(versions: Mapping[str, str]) -> dict[str, Any]:
    return {
        "command": COMMAND,
        "evaluator": f"virtualhome-eval {VHE_WHEEL.version} (sha256 {VHE_WHEEL.sha256})",
        "driver": "benchmarks/reference_published_driver.py (protocol 1), one subprocess per "
        "batch of consecutive tasks",
        "python_hash_seed": HASH_SEED,
        "nice": NICE,
        "fast_downward": f"23.06 ({FD2306_REQUIREMENT}, lama-first, the reference's "
        "wall-clock limit per plan: 100 s VirtualHome, 200 s BEHAVIOR)",
        "subgoal_decomposition_workers": 1,
        "batch_sizes": BATCH,
        "versions": dict(versions),
    }


# ------------------------------------------------------------------------ per-task data
AS_KEYS = (
    "skipped",
    "success",
    "executable",
    "executed",
    "error_type",
    "error_action",
    "counts",
    "matched",
    "goals",
)
TM_KEYS = (
    "skipped",
    "planner_success",
    "categories",
    "actions",
    "format_wrong",
    "hallucinated",
    "slowest_call",
    "holistic",
    "single_variate",
)
LOGIC_FORM_KEYS = ("skipped", "categories", "format_wrong", "hallucinated")


def _shrink(tree: Any) -> Any:
    """``tree`` with every executed action trace (a list of ``[ACTION] <obj> (id)``
    strings) replaced by its length: the traces are most of the bytes and the reference's
    summary never reads them (``traj_eval_stats``, ``goal_eval_stats``)."""
    if isinstance(tree, dict):
        return {k: _shrink(v) for k, v in tree.items()}
    if isinstance(tree, list | tuple):
        if tree and all(isinstance(x, str) and x.startswith("[") for x in tree):
            return len(tree)
        out = [_shrink(x) for x in tree]
        return tuple(out) if isinstance(tree, tuple) else out
    return tree


def compact_sd_info(info: str | None) -> str | None:
    """A subgoal-decomposition ``error_info`` entry's ``info`` (``str`` of the report
    tuple, which the reference reads back with ``ast.literal_eval``), traces shrunk."""
    if info is None:
        return None
    return repr(_shrink(ast.literal_eval(info)))


def compact_tasks(module: str, tasks: Mapping[str, Any]) -> dict[str, Any]:
    """The per-task verdicts kept in the repository (the parsed action lists, which the
    answers themselves hold, and the executed traces are dropped)."""
    if module == "subgoal-decomposition":
        return {
            k: {"success": v["success"], "info": compact_sd_info(v["info"])}
            for k, v in tasks.items()
        }
    keep = {"action-sequencing": AS_KEYS, "transition-modeling": TM_KEYS}.get(module)
    if keep is None:
        return {k: dict(v) for k, v in tasks.items()}
    return {k: {f: v[f] for f in keep if f in v} for k, v in tasks.items()}


def as_counts(tasks: Mapping[str, Mapping[str, Any]]) -> dict[str, int]:
    """The action-sequencing evaluator's counters over ``tasks`` (its loop, per task)."""
    c = dict.fromkeys(
        (
            "program",
            "parsing",
            "hallucination",
            "parameter",
            "executable",
            "correct",
            "wrong_temporal_order",
            "missing_step",
            "affordance_error",
            "additional_step",
            "matched_node",
            "matched_edge",
            "matched_action",
            "node_goals",
            "edge_goals",
            "action_goals",
        ),
        0,
    )
    for rec in tasks.values():
        if "skipped" in rec:
            continue
        c["program"] += 1
        counts = rec.get("counts", {})
        for kind in ("parsing", "hallucination", "parameter"):
            c[kind] += int(counts.get(kind, 0))
        for code in ("wrong_temporal_order", "missing_step", "affordance_error", "additional_step"):
            c[code] += int(counts.get(f"error:{code}", 0))
        grammar = any(counts.get(k) for k in ("parsing", "hallucination", "parameter"))
        # a plan identical to the gold script is counted executable without being run,
        # so it has no error_info entry (no "executable" key) and no success
        gold_copy = not grammar and "executable" not in rec
        c["executable"] += int(bool(rec.get("executed")) or gold_copy)
        c["correct"] += int(bool(rec.get("success")))
        m = rec.get("matched", [0, 0, 0])
        g = rec["goals"]
        for i, part in enumerate(("node", "edge", "action")):
            c[f"matched_{part}"] += int(m[i])
            c[f"{part}_goals"] += int(g[i])
    return c


def _rate(part: int, whole: int, digits: int) -> float | None:
    return round(100.0 * part / whole, digits) if whole else None


def as_summary(tasks: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """The reference's action-sequencing summary (``evaluate_results``'s final dict) from
    per-task verdicts. A zero denominator, a ``ZeroDivisionError`` in the reference, is
    None here."""
    c = as_counts(tasks)
    n = c["program"]
    goals = c["node_goals"] + c["edge_goals"] + c["action_goals"]
    matched = c["matched_node"] + c["matched_edge"] + c["matched_action"]
    return {
        "goal_evaluation": {
            "task_success_rate": _rate(c["correct"], n, 4),
            "state_goal": _rate(c["matched_node"], c["node_goals"], 4),
            "relation_goal": _rate(c["matched_edge"], c["edge_goals"], 4),
            "action_goal": _rate(c["matched_action"], c["action_goals"], 4),
            "total_goal": _rate(matched, goals, 4),
        },
        "trajectory_evaluation": {
            "execution_success_rate": _rate(c["executable"], n, 1),
            "grammar_error": {
                "parsing": _rate(c["parsing"], n, 4),
                "hallucination": _rate(c["hallucination"], n, 4),
                "predicate_argument_number": _rate(c["parameter"], n, 4),
            },
            "runtime_error": {
                "wrong_order": _rate(c["wrong_temporal_order"], n, 4),
                "missing_step": _rate(c["missing_step"], n, 4),
                "affordance_error": _rate(c["affordance_error"], n, 4),
                "additional_step": _rate(c["additional_step"], n, 4),
            },
        },
    }


def tm_planner_counts(
    tasks: Mapping[str, Mapping[str, Any]],
) -> dict[str, tuple[int, int]]:
    """Category → (plans found, tasks planned) as the reference counts them
    (``success_by_task_type_dict``): over the tasks its planner was run on (skipped and
    unreadable answers are not)."""
    found = dict.fromkeys(TM_FIGURE_CATEGORIES, 0)
    total = dict.fromkeys(TM_FIGURE_CATEGORIES, 0)
    for rec in tasks.values():
        if "planner_success" not in rec:
            continue
        for cat in rec.get("categories", []):
            total[cat] += 1
            found[cat] += int(bool(rec["planner_success"]))
    return {c: (found[c], total[c]) for c in TM_FIGURE_CATEGORIES}


def tm_planner_rates(tasks: Mapping[str, Mapping[str, Any]]) -> dict[str, float]:
    """The reference's planner-success rate per category, in percent (0 without tasks)."""
    return {
        c: round(100 * (f / n if n else 0.0), 4) for c, (f, n) in tm_planner_counts(tasks).items()
    }


def _comparable(tree: Any) -> Any:
    if isinstance(tree, Mapping):
        return {k: _comparable(v) for k, v in tree.items()}
    if isinstance(tree, float) or (isinstance(tree, int) and not isinstance(tree, bool)):
        return round(float(tree), 4)
    return tree


def check_batch(module: str, tasks: Mapping[str, Any], summary: Mapping[str, Any]) -> None:
    """Raise :class:`AggregationMismatch` when the figures recomputed from the batch's
    per-task verdicts differ from the batch's own summary."""
    if module == "action-sequencing":
        mine = _comparable(as_summary(tasks))
        theirs = _comparable(summary)
    elif module == "transition-modeling":
        mine = _comparable(tm_planner_rates(tasks))
        theirs = _comparable({c: summary[c]["planner_success_rate"] for c in TM_FIGURE_CATEGORIES})
    else:
        return
    if mine != theirs:
        raise AggregationMismatch(f"{module}: recomputed {mine} != the reference's {theirs}")


REFERENCE_COUNTERS = {
    "program_num": "program",
    "all_parsing_wrong": "parsing",
    "all_hallucination": "hallucination",
    "all_parameter_wrong": "parameter",
    "all_executable_plan": "executable",
    "all_correct_plan": "correct",
    "all_matched_node": "matched_node",
    "all_matched_edge": "matched_edge",
    "all_matched_action": "matched_action",
    "all_node_goals": "node_goals",
    "all_edge_goals": "edge_goals",
    "all_action_goals": "action_goals",
}
"""The action-sequencing evaluator's counter names → :func:`as_counts`'s."""
ERROR_CODES = {"0": "wrong_temporal_order", "1": "missing_step", "2": "affordance_error"}
ERROR_CODES["4"] = "additional_step"


def check_counters(tasks: Mapping[str, Any], counters: Mapping[str, Any]) -> None:
    """As :func:`check_batch`, against the evaluator's raw counters (a batch whose summary
    the evaluator could not print: ``crash``)."""
    mine = as_counts(tasks)
    theirs = {REFERENCE_COUNTERS[k]: v for k, v in counters.items() if k in REFERENCE_COUNTERS}
    theirs |= {ERROR_CODES[k]: v for k, v in counters["error_code_to_number"].items()}
    if {k: mine[k] for k in theirs} != theirs:
        raise AggregationMismatch(f"action-sequencing: recomputed {mine} != counters {theirs}")


def check_planner_counts(tasks: Mapping[str, Any], counts: Mapping[str, Sequence[Any]]) -> None:
    """As :func:`check_batch`, against the evaluator's per-category ``[success, total,
    ...]`` planner counts (a batch whose summary it could not build: ``crash``)."""
    zero = (0, 0)
    theirs = {
        c: (int(counts.get(c, zero)[0]), int(counts.get(c, zero)[1])) for c in TM_FIGURE_CATEGORIES
    }
    mine = tm_planner_counts(tasks)
    if mine != theirs:
        raise AggregationMismatch(f"transition-modeling: recomputed {mine} != counts {theirs}")


# ------------------------------------------------------------------------------ running
def units(modules: Sequence[str], models: Sequence[str] | None) -> list[Unit]:
    """Every batch, in :data:`PRIORITY` order."""
    groups: dict[tuple[str, str], list[Unit]] = {k: [] for k in PRIORITY}
    for module in ORDER:
        if module not in modules:
            continue
        dataset = "behavior" if module == BEHAVIOR else "virtualhome"
        published = "transition-modeling" if module == BEHAVIOR else module
        for f in published_files(published, dataset):
            if models and f.model not in models:
                continue
            n = len(json.loads(f.path.read_text(encoding="utf-8")))
            size = BATCH[module]
            batch = [Unit(module, f.model, f.path, i, size) for i in range((n + size - 1) // size)]
            if module == BEHAVIOR:
                groups[(module, LOGIC_FORM)].append(Unit(module, f.model, f.path, -1, size))
            whole = f.model in ALREADY_WHOLE.get(module, ())
            groups[(module, "already-whole" if whole else "batches")] += batch
    return [u for k in PRIORITY for u in groups[k]]


def cell_of(doc: dict[str, Any], unit: Unit) -> dict[str, Any]:
    """The stored cell of ``unit``'s file, reset when the file or the batch size changed."""
    rows = json.loads(unit.path.read_text(encoding="utf-8"))
    sha = _sha(unit.path)
    cell = doc["cells"].setdefault(unit.module, {}).get(unit.model)
    if cell is None or cell.get("file_sha256") != sha or cell.get("batch_size") != unit.size:
        cell = {"file_sha256": sha, "batch_size": unit.size, "of": len(rows), "batches": {}}
        doc["cells"][unit.module][unit.model] = cell
    return cell


def flavour_of(module: str) -> Flavour:
    return PUBLISHED_TM_FD2306 if module in ("transition-modeling", BEHAVIOR) else PUBLISHED


def _children_cpu() -> float:
    """CPU seconds (user + system) of this process's finished children and their own
    waited-for descendants: a batch's reference process with its Fast Downward calls."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def planner_options(unit: Unit, *, skip_single_variate: bool) -> dict[str, bool]:
    """The driver's planner options for ``unit``: only a BEHAVIOR planner batch records
    its Fast Downward calls, and only it may skip the single-variate tests; every other
    batch (VirtualHome transition modeling included) runs as it always did."""
    behavior_planner = unit.module == BEHAVIOR and unit.index >= 0
    return {
        "single_variate": not (skip_single_variate and behavior_planner),
        "planner_calls": behavior_planner,
    }


def run_unit(unit: Unit, workdir: Path, *, skip_single_variate: bool = False) -> dict[str, Any]:
    """One batch through the reference: its stored form. A BEHAVIOR planner batch records
    each task's holistic Fast Downward call (``holistic``: wall seconds, Fast Downward's
    search / total time) and, with ``skip_single_variate``, skips the single-variate tests
    (:data:`SKIPPED_SINGLE_VARIATE`); no other batch is changed by either."""
    options = planner_options(unit, skip_single_variate=skip_single_variate)
    skip = not options["single_variate"]
    rows = json.loads(unit.path.read_text(encoding="utf-8"))
    part = rows if unit.index < 0 else rows[unit.index * unit.size : (unit.index + 1) * unit.size]
    src = workdir / "batches" / unit.module / f"{unit.model}-{unit.key}.json"
    src.parent.mkdir(parents=True, exist_ok=True)
    src.write_text(json.dumps(part), encoding="utf-8")
    out = workdir / "runs" / unit.module / f"{unit.model}-{unit.key}"
    shutil.rmtree(out, ignore_errors=True)  # a stale error_info.json would be "already done"
    cpu0 = _children_cpu()
    run = run_reference_published(
        unit.evaluator,
        {unit.model: src},
        out,
        workers=1,
        timeout=6 * 3600.0,
        hash_seed=HASH_SEED,
        nice=NICE,
        flavour=flavour_of(unit.module),
        planner=unit.index >= 0,
        dataset=unit.dataset,
        **options,
    )
    cpu = round(_children_cpu() - cpu0, 1)
    res = run.models[unit.model]
    if unit.index < 0:
        return logic_form_entry(res, run.versions)
    tasks = compact_tasks(unit.evaluator, res["tasks"])
    if unit.module == "subgoal-decomposition":
        again = sd_summary_of(unit.model, src, tasks, out.with_name(out.name + "-check"))
        if _comparable(again) != _comparable(res["summary"]):
            raise AggregationMismatch(f"{unit}: {again} != the reference's {res['summary']}")
    elif res["summary"] is not None:
        check_batch(unit.evaluator, tasks, res["summary"])
    elif unit.evaluator == "transition-modeling":
        check_planner_counts(tasks, res["counters"]["success_by_task_type"])
    else:
        check_counters(tasks, res["counters"])
    return {
        "tasks": tasks,
        "summary": res["summary"],
        "ids": [str(r["identifier"]) for r in part],
        "seconds": round(float(res["seconds"]), 1),
        "cpu_seconds": cpu,
        "date": _now(),
        "versions": run.versions,
        **({"crash": res["crash"], "counters": res["counters"]} if res.get("crash") else {}),
        **({"skipped": SKIPPED_SINGLE_VARIATE} if skip else {}),
    }


def logic_form_entry(res: Mapping[str, Any], versions: Mapping[str, str]) -> dict[str, Any]:
    """A BEHAVIOR file's logic-form figures as the reference computes them: its
    per-category ``[tp, fp, fn, precision, recall, f1]`` (read where its summary raises,
    :func:`reference_published_driver._planner_counts`), in percent rounded as its
    summary rounds (4 digits)."""
    scores = res["counters"]["full_predicate_type"]
    figures = {
        f"{cat}_{name}": round(100 * float(v[3 + i]), 4)
        for cat, v in sorted(scores.items())
        for i, name in enumerate(("precision", "recall", "f1"))
    }
    return {
        "figures": figures,
        "counts": {cat: v[:3] for cat, v in sorted(scores.items())},
        "tasks": {  # the planner was disabled: its per-task results mean nothing here
            k: {f: v[f] for f in LOGIC_FORM_KEYS if f in v} for k, v in res["tasks"].items()
        },
        "seconds": round(float(res["seconds"]), 1),
        "date": _now(),
        "versions": dict(versions),
        "crash": res.get("crash"),
    }


def finish_cell(module: str, model: str, cell: dict[str, Any], workdir: Path) -> None:
    """When every batch of the cell is stored: its whole-file summary and figures."""
    batches = cell["batches"]
    n_batches = (cell["of"] + cell["batch_size"] - 1) // cell["batch_size"]
    done = sum(len(b["ids"]) for b in batches.values())
    cell["tasks_run"] = done
    cell["whole"] = len(batches) == n_batches and done == cell["of"]
    if not cell["whole"] or "figures" in cell or (module == BEHAVIOR and LOGIC_FORM not in cell):
        return
    tasks = {k: v for b in batches.values() for k, v in b["tasks"].items()}
    from differential_published import subgoal_figures, trajectory_figures

    if module == "action-sequencing":
        cell["summary"] = as_summary(tasks)
        cell["figures"] = trajectory_figures(cell["summary"])
    elif module == "transition-modeling":
        rates = tm_planner_rates(tasks)
        cell["figures"] = {f"{c}_planner_success_rate": v for c, v in rates.items()}
    elif module == BEHAVIOR:
        counts = tm_planner_counts(tasks)
        planned = {c: v for c, v in counts.items() if v[1]}
        cell["figures"] = {
            f"{c}_planner_success_rate": round(100 * f / n, 4) for c, (f, n) in planned.items()
        } | cell.get(LOGIC_FORM, {}).get("figures", {})
    else:
        cell["summary"] = sd_whole_summary(model, tasks, workdir)
        cell["figures"] = subgoal_figures(cell["summary"])
    cell["finished"] = _now()


def sd_whole_summary(model: str, tasks: Mapping[str, Any], workdir: Path) -> dict[str, Any]:
    """The reference's own subgoal-decomposition summary of the whole file."""
    (f,) = (f for f in published_files("subgoal-decomposition", "virtualhome") if f.model == model)
    out = workdir / "runs" / "subgoal-decomposition" / f"{model}-whole"
    return sd_summary_of(model, f.path, tasks, out)


def sd_summary_of(model: str, rows: Path, tasks: Mapping[str, Any], out: Path) -> dict[str, Any]:
    """The reference's subgoal-decomposition summary of the answers in ``rows`` given
    every task's (compacted) ``error_info`` entry: its evaluator run with that
    ``error_info.json`` already in place evaluates no task again and summarises them all
    (``simulate_one_llm``). Checked on every batch against the batch's own summary."""
    shutil.rmtree(out, ignore_errors=True)
    info = out / model / "out" / "subgoal_decomposition" / model / "error_info.json"
    info.parent.mkdir(parents=True, exist_ok=True)
    info.write_text(json.dumps(tasks), encoding="utf-8")
    run = run_reference_published(
        "subgoal-decomposition",
        {model: rows},
        out,
        workers=1,
        hash_seed=HASH_SEED,
        nice=NICE,
    )
    summary: dict[str, Any] = run.models[model]["summary"]
    return summary


@contextlib.contextmanager
def single_instance(workdir: Path) -> Iterator[None]:
    """One driver at a time (a second one exits at once instead of doubling the load)."""
    workdir.mkdir(parents=True, exist_ok=True)
    with (workdir / "driver.lock").open("w") as fh:
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise SystemExit("another reference_whole_files.py is running") from None
        yield


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--resume", action="store_true", help="go on where the data stop (default)")
    ap.add_argument("--module", action="append", choices=ORDER, help="only these modules")
    ap.add_argument("--model", action="append", help="only these models")
    ap.add_argument("--max-batches", type=int, default=0, help="stop after n batches (0: all)")
    ap.add_argument("--status", action="store_true", help="print progress, run nothing")
    ap.add_argument(
        "--skip-single-variate",
        action="store_true",
        help="BEHAVIOR planner batches: skip the single-variate planner tests (no figure)",
    )
    ap.add_argument("--data", type=Path, default=WHOLE_FILES_PATH, help=argparse.SUPPRESS)
    ap.add_argument("--workdir", type=Path, default=WORKDIR, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    modules = tuple(args.module or ORDER)
    doc = load(args.data)
    if args.status:
        for module, cells in sorted(doc["cells"].items()):
            for model, cell in sorted(cells.items()):
                batches = cell["batches"].values()
                done = sum(len(b["ids"]) for b in batches)
                spent = sum(float(b.get("seconds", 0.0)) for b in batches)
                trimmed = sum(b.get("skipped") == SKIPPED_SINGLE_VARIATE for b in batches)
                extra = f" {len(batches)} batches {spent:.0f} s" if batches else ""
                extra += f" ({trimmed} without single-variate tests)" if trimmed else ""
                near = [
                    t["holistic"]["wall"]
                    for b in batches
                    for t in b["tasks"].values()
                    if t.get("holistic", {}).get("wall", 0.0) >= NEAR_LIMIT
                ]
                extra += f"; {len(near)} holistic calls took >= {NEAR_LIMIT:.0f} s" if near else ""
                print(f"{module:28} {model:32} {done:4}/{cell['of']}{extra}")
        return 0
    with single_instance(args.workdir):
        for py in {flavour_of(m) for m in modules}:
            ensure_reference_env(flavour=py, timeout=1800.0)
        ran = 0
        for unit in units(modules, args.model):
            cell = cell_of(doc, unit)
            if unit.index < 0:
                if LOGIC_FORM not in cell:
                    if args.max_batches and ran >= args.max_batches:
                        break
                    cell[LOGIC_FORM] = run_unit(unit, args.workdir)
                    ran += 1
                    save(doc, args.data)
                    print(f"{_now()} {unit.module} {unit.model} {LOGIC_FORM}", flush=True)
                continue
            if unit.key not in cell["batches"]:
                if args.max_batches and ran >= args.max_batches:
                    break
                t0 = time.perf_counter()
                try:
                    cell["batches"][unit.key] = run_unit(
                        unit, args.workdir, skip_single_variate=args.skip_single_variate
                    )
                except ReferenceUnavailableError as exc:
                    print(f"{unit}: {exc}", file=sys.stderr, flush=True)
                    continue
                ran += 1
                doc["provenance"] = provenance(cell["batches"][unit.key]["versions"])
                print(
                    f"{_now()} {unit.module} {unit.model} batch {unit.index}: "
                    f"{time.perf_counter() - t0:.0f} s",
                    flush=True,
                )
            finish_cell(unit.module, unit.model, cell, args.workdir)
            save(doc, args.data)
    if not ran:
        print("every batch is stored: nothing left to run", flush=True)
        return NOTHING_LEFT
    return 0


if __name__ == "__main__":
    sys.exit(main())
