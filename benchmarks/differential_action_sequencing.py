"""planproof's VirtualHome action-sequencing evaluation against the reference (eai-eval 1.0.5).

Run ``python benchmarks/differential_action_sequencing.py [--responses FILE ...]``. Both
tools score the same response files (the reference's JSON list of ``{identifier,
llm_output}``): by default the gold plans of all 342 tasks and one mutated file per
:data:`MUTATIONS` entry, made deterministically from the gold plans. planproof runs as
its CLI (``planproof evaluate action-sequencing --dataset virtualhome --responses F``);
the reference's unmodified ``evaluate_results`` runs in its own environment through
``reference_as_driver.py``, which also reports what the reference did per task (it has no
per-task success of its own). The report, ``benchmarks/results/differential_action_
sequencing.md`` and ``.json``, puts the two summaries side by side and lists every task
where the two disagree on executability, error type or success, grouped by the cause
found in the reference's code (see :func:`causes`; explained in
``docs/reference-differences.md``).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))  # run as a script, or imported

from reference_env import (
    ACTION_SEQUENCING,
    AS_DRIVER,
    ActionSequencingRun,
    _stamp,
    ensure_action_sequencing_env,
    run_reference_action_sequencing,
)

from planproof.interface.responses import render_virtualhome
from planproof.simulators.core import Action, Task

RESULTS = Path(__file__).resolve().parent / "results"
UNKNOWN_OBJECT = "unicorn.9999"
UNKNOWN_ACTION = "LEVITATE"
SAMPLE = 40
"""Tasks per mutated file by default. The reference simulates a plan that differs from
the gold script with a deep copy of every earlier state at every step (seconds per plan,
more under load), so all 342 tasks x 8 mutations take hours; gold plans are mostly not
simulated at all (its shortcut) and always run in full."""

Plan = tuple[Action, ...]
Mutation = Callable[[Plan, random.Random], Plan | None]


# ----------------------------------------------------------------------------- mutations
def _drop_step(plan: Plan, rng: random.Random) -> Plan | None:
    if len(plan) < 2:
        return None
    i = rng.randrange(len(plan))
    return plan[:i] + plan[i + 1 :]


def _swap_neighbours(plan: Plan, rng: random.Random) -> Plan | None:
    spots = [i for i in range(len(plan) - 1) if plan[i] != plan[i + 1]]
    if not spots:
        return None
    i = rng.choice(spots)
    return (*plan[:i], plan[i + 1], plan[i], *plan[i + 2 :])


def _duplicate_step(plan: Plan, rng: random.Random) -> Plan | None:
    i = rng.randrange(len(plan))
    return plan[: i + 1] + plan[i:]


def _with_args(plan: Plan) -> list[int]:
    return [i for i, a in enumerate(plan) if a.args]


def _unknown_object(plan: Plan, rng: random.Random) -> Plan | None:
    spots = _with_args(plan)
    if not spots:
        return None
    i = rng.choice(spots)
    a = plan[i]
    return (*plan[:i], Action(a.name, (UNKNOWN_OBJECT, *a.args[1:])), *plan[i + 1 :])


def _unknown_action(plan: Plan, rng: random.Random) -> Plan | None:
    i = rng.randrange(len(plan))
    return (*plan[:i], Action(UNKNOWN_ACTION, plan[i].args), *plan[i + 1 :])


def _wrong_argument_count(plan: Plan, rng: random.Random) -> Plan | None:
    """A one-argument step gets its argument twice; a two-argument step loses its second."""
    spots = _with_args(plan)
    if not spots:
        return None
    i = rng.choice(spots)
    a = plan[i]
    args = a.args[:1] if len(a.args) > 1 else (a.args[0], a.args[0])
    return (*plan[:i], Action(a.name, args), *plan[i + 1 :])


def _plugin_step(plan: Plan, rng: random.Random) -> Plan | None:
    """``PLUGIN`` of the first switched-on object, right before it is switched on."""
    del rng
    for i, a in enumerate(plan):
        if a.name == "SWITCHON":
            return (*plan[:i], Action("PLUGIN", a.args), *plan[i:])
    return None


def _standup_step(plan: Plan, rng: random.Random) -> Plan | None:
    """``"STANDUP": []`` after the first SIT or LIE step, or at the end of the plan."""
    del rng
    at = next((i + 1 for i, a in enumerate(plan) if a.name in {"SIT", "LIE"}), len(plan))
    return (*plan[:at], Action("STANDUP", ()), *plan[at:])


MUTATIONS: dict[str, Mutation] = {
    "drop_step": _drop_step,
    "swap_neighbours": _swap_neighbours,
    "duplicate_step": _duplicate_step,
    "unknown_object": _unknown_object,
    "unknown_action": _unknown_action,
    "wrong_argument_count": _wrong_argument_count,
    "plugin_step": _plugin_step,
    "standup_empty": _standup_step,
}
"""Name → mutation of a gold plan (None: does not apply to that plan; the task is left out
of that file). Each task's choice is seeded by ``"<mutation>:<identifier>"``."""


def response_files(tasks: Sequence[Task], directory: Path, sample: int = 0) -> dict[str, Path]:
    """Write the gold responses (all tasks) and one file per mutation (a seeded sample of
    ``sample`` tasks, 0: all); name → path."""
    files: dict[str, Path] = {}

    def write(name: str, rows: list[dict[str, str]]) -> None:
        path = directory / f"{name}.json"
        path.write_text(json.dumps(rows, indent=0) + "\n", encoding="utf-8")
        files[name] = path

    write(
        "gold",
        [{"identifier": t.identifier, "llm_output": render_virtualhome(t.gold)} for t in tasks],
    )
    for name, mutate in MUTATIONS.items():
        rows = []
        chosen = tasks
        if 0 < sample < len(tasks):
            chosen = sorted(
                random.Random(f"sample:{name}").sample(list(tasks), sample),
                key=lambda t: t.identifier,
            )
        for t in chosen:
            plan = mutate(tuple(t.gold), random.Random(f"{name}:{t.identifier}"))
            if plan is not None:
                rows.append({"identifier": t.identifier, "llm_output": render_virtualhome(plan)})
        write(name, rows)
    return files


# ------------------------------------------------------------------------ the two tools
def planproof_command() -> list[str]:
    """planproof's console script next to this interpreter (no pyenv shim in between), or
    the same entry point through ``python -c``."""
    script = Path(sys.executable).with_name("planproof")
    if script.is_file():
        return [str(script)]
    return [sys.executable, "-c", "import sys; from planproof.cli import main; sys.exit(main())"]


def run_planproof(name: str, path: Path, out: Path) -> dict[str, Any]:
    """planproof's CLI on one file: its summary and per-task results."""
    cmd = [
        *planproof_command(),
        "evaluate",
        "action-sequencing",
        "--dataset",
        "virtualhome",
        "--responses",
        str(path),
        "--output",
        str(out / name),
        "--json",
    ]
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        raise SystemExit(f"planproof failed on {path} (exit {proc.returncode}):\n{proc.stderr}")
    rows = (out / name / "results.jsonl").read_text(encoding="utf-8").splitlines()
    return {
        "wall_s": wall,
        "summary": json.loads(proc.stdout),
        "tasks": {r["identifier"]: r for r in map(json.loads, rows)},
    }


def _cache_key(path: Path) -> str:
    """The reference's result depends on the responses and its own code only."""
    digest = hashlib.sha256(path.read_bytes())
    digest.update(AS_DRIVER.read_bytes())
    digest.update(json.dumps(_stamp(ACTION_SEQUENCING), sort_keys=True).encode())
    return digest.hexdigest()[:32]


def run_reference(
    files: Mapping[str, Path], workdir: Path, jobs: int, cache: Path | None = None
) -> ActionSequencingRun:
    """The reference on every file, ``jobs`` driver processes in parallel. With ``cache``,
    a file whose content (and the driver and environment) was evaluated before is read
    from there: the reference takes minutes per file."""
    python = ensure_action_sequencing_env()
    cached: dict[str, Any] = {}
    versions: dict[str, str] = {}
    if cache is not None:
        for name, path in files.items():
            hit = cache / f"{_cache_key(path)}.json"
            if hit.is_file():
                doc = json.loads(hit.read_text(encoding="utf-8"))
                cached[name], versions = doc["model"], doc["versions"]
    todo = {n: p for n, p in files.items() if n not in cached}
    if not todo:
        return ActionSequencingRun(versions, cached, 0.0)
    run = _run_reference(todo, workdir, jobs, python)
    if cache is not None:
        cache.mkdir(parents=True, exist_ok=True)
        for name, model in run.models.items():
            doc = {"versions": run.versions, "model": model}
            (cache / f"{_cache_key(files[name])}.json").write_text(json.dumps(doc))
    return ActionSequencingRun(run.versions, {**cached, **run.models}, run.wall_s)


def _run_reference(
    files: Mapping[str, Path], workdir: Path, jobs: int, python: Path
) -> ActionSequencingRun:
    names = list(files)
    groups = [names[i::jobs] for i in range(jobs) if names[i::jobs]]

    def one(group: list[str]) -> ActionSequencingRun:
        return run_reference_action_sequencing(
            {n: files[n] for n in group},
            workdir / f"job{groups.index(group)}",
            python=python,
            timeout=3600,
        )

    with ThreadPoolExecutor(max_workers=len(groups)) as pool:
        runs = list(pool.map(one, groups))
    models = {k: v for r in runs for k, v in r.models.items()}
    return ActionSequencingRun(runs[0].versions, models, max(r.wall_s for r in runs))


# ------------------------------------------------------------------------- comparison
REF_ERROR = {
    "parsing error": "parsing",
    "hallucination error": "hallucination",
    "parameter error": "argument_count",
    "wrong_temporal_order": "wrong_order",
    "missing_step": "missing_step",
    "affordance_error": "affordance",
    "unseen_object": "unseen_object",
    "unknown_error": "unknown_error",
}


@dataclass(frozen=True)
class Outcome:
    """One tool's verdict on one task; ``evaluated`` False: the reference left the task
    out (its gold test failed)."""

    evaluated: bool
    executable: bool
    error_type: str | None
    success: bool

    def text(self) -> str:
        if not self.evaluated:
            return self.error_type or "not evaluated"
        err = self.error_type or "-"
        return f"exec={'Y' if self.executable else 'N'} err={err} ok={'Y' if self.success else 'N'}"


def reference_outcome(task: Mapping[str, Any], info: Mapping[str, Any] | None) -> Outcome:
    checks = task.get("scene_checks", [])
    if not checks or not checks[0]["all_success"]:
        return Outcome(False, False, None, False)
    success = len(checks) > 1 and bool(checks[1]["all_success"])
    if info is None:  # plan equal to the gold script: counted executable, never simulated
        return Outcome(True, True, None, False)
    err = info.get("error_type")
    return Outcome(
        True, bool(info["executable"]), REF_ERROR.get(err, err) if err else None, success
    )


def planproof_outcome(row: Mapping[str, Any]) -> Outcome:
    return Outcome(True, bool(row["executable"]), row["error_type"], bool(row["success"]))


def _first_unmet(check: Mapping[str, Any]) -> str | None:
    node, edge, action = check["node"], check["edge"], check["action"]
    if edge[1] >= 2 and edge[0] < edge[1] and not check["unmet_edge"]:
        return "edge-break"
    if node[0] < node[1]:
        return "node"
    if edge[0] < edge[1]:
        return "edge"
    if action[0] < action[1]:
        return "action"
    return None


def causes(ref: Mapping[str, Any], r: Outcome, p: Outcome, pp: Mapping[str, Any]) -> str:
    """The cause of one disagreement, read off what the reference did (first that
    applies). The keys are the sections of docs/reference-differences.md."""
    checks = ref.get("scene_checks", [])
    if not r.evaluated:
        why = _first_unmet(checks[0]) if checks else None
        return {
            "edge-break": "gold-test: edge loop break (>= 2 edge goals)",
            "edge": "gold-test: edge goal absent from the dataset's final graph",
            "node": "gold-test: state goal absent from the dataset's final graph",
        }.get(why or "", "gold-test: other")
    parsed = ref.get("parsed")
    dropped = parsed is not None and len(parsed) != pp.get("steps", len(parsed))
    if r.error_type == "hallucination" and p.error_type != "hallucination":
        if ref.get("unknown_actions"):
            names = sorted({a.upper() for a in ref["unknown_actions"]})
            return f"hallucination: action missing from valid_actions ({', '.join(names)})"
        if ref.get("unknown_objects"):
            return "hallucination: object outside the reference's 'relevant' objects"
        return "hallucination: other"
    if ref.get("equals_gold_script"):
        if dropped:
            return "zero-argument step dropped by the parser, then gold shortcut"
        return "gold shortcut: plan equal to the gold script is not simulated (success false)"
    if dropped:
        return "zero-argument step dropped by the parser"
    if r.executable != p.executable or r.error_type != p.error_type:
        return (
            f"execution: reference {r.error_type or 'executable'}, planproof "
            f"{p.error_type or 'executable'}"
        )
    goals = pp.get("goals", {})
    if p.success and not r.success and not any(g["total"] for g in goals.values()):
        return "planproof: a task without goal conditions is a success whatever the plan"
    if r.success != p.success and len(checks) > 1:
        why = _first_unmet(checks[1])
        if r.success:
            return "goals: planproof says unmet, reference met"
        return {
            "edge-break": "goals: edge loop break (>= 2 edge goals)",
            "action": "goals: action goal (substring, in order, stops at first unmet)",
            "node": "goals: state goal unmet in the reference's final state",
            "edge": "goals: edge goal unmet in the reference's final state",
        }.get(why or "", "goals: other")
    return "other"


@dataclass(frozen=True)
class Disagreement:
    file: str
    identifier: str
    cause: str
    reference: Outcome
    planproof: Outcome
    detail: str


def _detail(ref: Mapping[str, Any], pp: Mapping[str, Any]) -> str:
    bits = []
    failed = [s for s in ref.get("steps", []) if not s["ok"]]
    if failed:
        s = failed[-1]
        bits.append(f"ref step {len(ref['steps']) - 1}: {s['action']} ({s['message'][:120]})")
    if pp.get("error"):
        e = pp["error"]
        bits.append(f"planproof step {e.get('step')}: {e.get('action')} ({e.get('message')})")
    if ref.get("unknown_actions"):
        bits.append(f"unknown actions {ref['unknown_actions']}")
    if ref.get("unknown_objects"):
        bits.append(f"unknown objects {ref['unknown_objects'][:3]}")
    checks = ref.get("scene_checks", [])
    if checks:
        c = checks[-1]
        what = "ref goals met/total" if len(checks) > 1 else "ref gold test (no action goals)"
        bits.append(f"{what}: node {c['node']} edge {c['edge']} action {c['action']}")
    if pp.get("unmet_goals"):
        bits.append(f"planproof unmet {pp['unmet_goals'][:3]}")
    return "; ".join(bits)


def compare(
    name: str, ref_model: Mapping[str, Any], pp_tasks: Mapping[str, Any]
) -> list[Disagreement]:
    out = []
    info = ref_model["error_info"]
    crashes = ref_model.get("crashes", {})
    for ident, row in pp_tasks.items():
        ref = ref_model["tasks"].get(ident, {})
        p = planproof_outcome(row)
        if ident in crashes:
            crash = crashes[ident]
            r = Outcome(False, False, f"crash: {crash['error']}", False)
            cause = f"reference crashes ({crash['error']})"
            out.append(Disagreement(name, ident, cause, r, p, crash["message"][:200]))
            continue
        r = reference_outcome(ref, info.get(ident))
        if r != p:
            out.append(Disagreement(name, ident, causes(ref, r, p, row), r, p, _detail(ref, row)))
    return out


def recomputed_summary(ref_model: Mapping[str, Any]) -> dict[str, int]:
    """Counts from the per-task observations, to check them against the reference's own
    summary (its rates are these over the evaluated tasks)."""
    outcomes = [
        reference_outcome(t, ref_model["error_info"].get(i)) for i, t in ref_model["tasks"].items()
    ]
    evaluated = [o for o in outcomes if o.evaluated]
    return {
        "evaluated": len(evaluated),
        "executable": sum(o.executable for o in evaluated),
        "success": sum(o.success for o in evaluated),
    }


# ------------------------------------------------------------------------------ report
ROWS = (
    ("task success", ("goal_evaluation", "task_success_rate")),
    ("state goal", ("goal_evaluation", "state_goal")),
    ("relation goal", ("goal_evaluation", "relation_goal")),
    ("action goal", ("goal_evaluation", "action_goal")),
    ("total goal", ("goal_evaluation", "total_goal")),
    ("executable", ("trajectory_evaluation", "execution_success_rate")),
    ("parsing", ("trajectory_evaluation", "grammar_error", "parsing")),
    ("hallucination", ("trajectory_evaluation", "grammar_error", "hallucination")),
    ("argument count", ("trajectory_evaluation", "grammar_error", "predicate_argument_number")),
    ("wrong order", ("trajectory_evaluation", "runtime_error", "wrong_order")),
    ("missing step", ("trajectory_evaluation", "runtime_error", "missing_step")),
    ("affordance", ("trajectory_evaluation", "runtime_error", "affordance_error")),
    ("additional step", ("trajectory_evaluation", "runtime_error", "additional_step")),
)


def _get(d: Mapping[str, Any], path: Iterable[str]) -> Any:
    cur: Any = d
    for k in path:
        cur = cur.get(k) if isinstance(cur, Mapping) else None
    return cur


def _pct(v: Any) -> str:
    return f"{v:.1f}" if isinstance(v, int | float) else "-"


def report(
    files: Mapping[str, Path],
    ref: ActionSequencingRun,
    ours: Mapping[str, dict[str, Any]],
    disagreements: Sequence[Disagreement],
) -> tuple[str, dict[str, Any]]:
    lines = [
        "# VirtualHome action sequencing: planproof vs the reference (eai-eval 1.0.5)",
        "",
        "Made by `python benchmarks/differential_action_sequencing.py`; the causes are "
        "explained in `docs/reference-differences.md`. Reference: "
        + ", ".join(f"{k} {v}" for k, v in sorted(ref.versions.items()))
        + ".",
        "",
        "Rates in percent. The reference divides by the tasks it evaluates (those whose "
        "gold test passes), planproof by all tasks in the file.",
        "",
        "## Summaries",
        "",
    ]
    header = "| metric | " + " | ".join(f"{n} ref | {n} pp" for n in files) + " |"
    lines += [header, "|---" * (1 + 2 * len(files)) + "|"]
    tasks_row = ["tasks"]
    for n in files:
        counts = recomputed_summary(ref.models[n])
        tasks_row += [str(counts["evaluated"]), str(ours[n]["summary"]["tasks"])]
    lines.append("| " + " | ".join(tasks_row) + " |")
    crash_row = ["reference crashes (tasks)"]
    for n in files:
        crash_row += [str(len(ref.models[n].get("crashes", {}))), "-"]
    lines.append("| " + " | ".join(crash_row) + " |")
    for label, path in ROWS:
        cells = [label]
        for n in files:
            cells += [
                _pct(_get(ref.models[n]["summary"], path)),
                _pct(_get(ours[n]["summary"], path)),
            ]
        lines.append("| " + " | ".join(cells) + " |")
    by_cause: dict[str, list[Disagreement]] = defaultdict(list)
    for d in disagreements:
        by_cause[d.cause].append(d)
    per_file = Counter(d.file for d in disagreements)
    lines += [
        "",
        "## Disagreements",
        "",
        f"{len(disagreements)} task verdicts differ (executable, error type or success, "
        "or the reference does not evaluate the task). Per file: "
        + ", ".join(f"{n} {per_file[n]}" for n in files)
        + ".",
        "",
        "| cause | " + " | ".join(files) + " | total |",
        "|---" * (len(files) + 2) + "|",
    ]
    order = sorted(by_cause, key=lambda c: -len(by_cause[c]))
    for cause in order:
        c = Counter(d.file for d in by_cause[cause])
        lines.append(
            f"| {cause} | " + " | ".join(str(c[n]) for n in files) + f" | {len(by_cause[cause])} |"
        )
    for cause in order:
        lines += [
            "",
            f"### {cause} ({len(by_cause[cause])})",
            "",
            "| file | task | reference | planproof | detail |",
            "|---|---|---|---|---|",
        ]
        for d in sorted(by_cause[cause], key=lambda d: (d.file, d.identifier)):
            detail = d.detail.replace("|", "/")
            lines.append(
                f"| {d.file} | {d.identifier} | {d.reference.text()} | "
                f"{d.planproof.text()} | {detail} |"
            )
    doc = {
        "reference_versions": ref.versions,
        "files": {n: str(p) for n, p in files.items()},
        "summaries": {
            n: {
                "reference": ref.models[n]["summary"],
                "reference_counts": recomputed_summary(ref.models[n]),
                "planproof": ours[n]["summary"],
            }
            for n in files
        },
        "disagreements": [
            {
                "file": d.file,
                "identifier": d.identifier,
                "cause": d.cause,
                "reference": d.reference.__dict__,
                "planproof": d.planproof.__dict__,
                "detail": d.detail,
            }
            for d in disagreements
        ],
        "by_cause": {c: {n: Counter(d.file for d in by_cause[c])[n] for n in files} for c in order},
    }
    return "\n".join(lines) + "\n", doc


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--responses",
        type=Path,
        nargs="+",
        help="response files to compare (default: gold + mutations)",
    )
    parser.add_argument("--output", type=Path, default=RESULTS, help="report directory")
    parser.add_argument("--jobs", type=int, default=2, help="reference processes in parallel")
    parser.add_argument(
        "--no-cache",
        action="store_true",
        help="always run the reference (default: reuse its results for unchanged files, "
        "kept in the planproof cache)",
    )
    parser.add_argument(
        "--sample",
        type=int,
        default=SAMPLE,
        help=f"tasks per mutated file (default {SAMPLE}; 0: all 342, hours of reference time)",
    )
    args = parser.parse_args(argv)
    from planproof.data import cache_dir
    from planproof.simulators.virtualhome import load_virtualhome_tasks

    with tempfile.TemporaryDirectory(prefix="planproof-diff-as-") as tmp:
        work = Path(tmp)
        if args.responses:
            files = {p.stem: p.resolve() for p in args.responses}
        else:
            (work / "responses").mkdir()
            files = response_files(load_virtualhome_tasks(), work / "responses", args.sample)
        t0 = time.perf_counter()
        ours = {n: run_planproof(n, p, work / "planproof") for n, p in files.items()}
        print(f"planproof: {time.perf_counter() - t0:.1f} s for {len(files)} files", flush=True)
        t0 = time.perf_counter()
        cache = None if args.no_cache else cache_dir() / "reference-as-runs"
        ref = run_reference(files, work / "reference", max(1, args.jobs), cache)
        print(f"reference: {time.perf_counter() - t0:.1f} s for {len(files)} files", flush=True)
        disagreements = [d for n in files for d in compare(n, ref.models[n], ours[n]["tasks"])]
        for n in files:
            counts = recomputed_summary(ref.models[n])
            s = ref.models[n]["summary"]
            rate = round(100.0 * counts["executable"] / max(counts["evaluated"], 1), 1)
            if rate != s["trajectory_evaluation"]["execution_success_rate"]:
                print(
                    f"warning: {n}: observed executable rate {rate} differs from the "
                    f"reference's summary",
                    file=sys.stderr,
                )
        text, doc = report(files, ref, ours, disagreements)
        args.output.mkdir(parents=True, exist_ok=True)
        (args.output / "differential_action_sequencing.md").write_text(text, encoding="utf-8")
        (args.output / "differential_action_sequencing.json").write_text(
            json.dumps(doc, indent=1) + "\n", encoding="utf-8"
        )
    print(
        f"{len(disagreements)} disagreements; report: "
        f"{args.output / 'differential_action_sequencing.md'}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
