"""planproof against the published reference evaluator (virtualhome-eval 0.1.1) on the
published LLM answers behind the EAI paper.

Run ``python benchmarks/differential_published.py [--module goal-interpretation ...]
[--model gpt-4o-2024-05-13 ...] [--write-figures]``. For each module and model, the
reference's unmodified ``evaluate_results`` (in its own venv, ``reference_published_
driver.py``; every verdict is kept in the user cache, keyed by the file's content, as it
takes minutes per file) and planproof score the same published file; then every per-task
disagreement is put in a class by that module's classifier (:data:`CLASSIFIERS`: one
function per module, so action sequencing and subgoal decomposition can be added). Each
class is explained, with a minimal example and a test, in ``docs/reference-differences.md``.

Outputs: ``benchmarks/results/differential_published.md`` / ``.json`` (figures side by side
and the disagreements by class), and with ``--write-figures`` the reference's figures per
module x model into ``planproof/data/reference/published_reference.json`` (package data
read by ``planproof reproduce eai``, so the reference column needs no venv).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))  # run as a script, or imported

from reference_env import PUBLISHED_MODULES, reference_published_cached

from planproof.data.published import MODELS, VHE_WHEEL, PublishedFile, published_files
from planproof.data.reference_figures import FIGURES_PATH

RESULTS = Path(__file__).resolve().parent / "results"
GI_TYPES = (("node", "state"), ("edge", "relation"), ("action", "action"))
"""The reference's goal types → planproof's (Table 9: state, relation, action)."""


@dataclass(frozen=True)
class Disagreement:
    """One task on which the two evaluators differ, and why."""

    module: str
    model: str
    identifier: str
    cls: str
    reference: Any
    planproof: Any


Classifier = Callable[[PublishedFile, dict[str, Any]], tuple[dict[str, Any], list[Disagreement]]]
"""(file, the reference's verdict) → (planproof's summary, the per-task disagreements)."""


# --------------------------------------------------------------------- goal interpretation
def _several_objects(text: str, task: Any) -> bool:
    """Does the answer name a class of which the task has several objects (the
    reference keys objects by class name and keeps one id)?"""
    from planproof.interface.goals import resolve_object

    names = {w.strip('"') for w in text.replace(",", " ").replace(":", " ").split()}
    return any(len(resolve_object(n, task.world)) > 1 for n in names if n.isidentifier())


def goal_interpretation_class(
    kind: str, ref: Mapping[str, int], pp: Mapping[str, int], several: bool
) -> str:
    """The cause of one (task, goal type) difference in (TP, FP, FN)."""
    if kind == "action" and ref.get("TP", 0) > pp["tp"] and ref.get("FN", 0) < pp["fn"]:
        return "alternative-matched-repeatedly"
    if kind != "action" and ref.get("TP", 0) < pp["tp"] and several:
        return "one-name-several-objects"
    if kind != "action" and several and ref.get("FP", 0) + ref.get("TP", 0) < pp["tp"] + pp["fp"]:
        return "one-name-several-objects"
    return "unexplained"


def classify_goal_interpretation(
    file: PublishedFile, ref: dict[str, Any]
) -> tuple[dict[str, Any], list[Disagreement]]:
    from planproof.metrics.goal_interpretation import evaluate_goal_response, summarize
    from planproof.runs.modules import load_tasks

    tasks = {t.identifier: t for t in load_tasks("virtualhome")}
    rows = json.loads(file.path.read_text(encoding="utf-8"))
    results = []
    out: list[Disagreement] = []
    for row in rows:
        ident = str(row["identifier"])
        task = tasks[ident]
        res = evaluate_goal_response(task, str(row["llm_output"]), logic=False)
        results.append(res)
        rt = ref["tasks"].get(ident, {})
        if "node" not in rt:  # the reference read no JSON here and counted nothing
            if res.parse_error is None or res.total.fn:
                out.append(
                    Disagreement(
                        "goal-interpretation",
                        file.model,
                        ident,
                        "reference-skips-unparsable-response",
                        rt,
                        res.total.to_dict(),
                    )
                )
            continue
        several = _several_objects(str(row["llm_output"]), task)
        for rk, pk in GI_TYPES:
            rc = rt.get(rk, {})
            pc = res.counts.get(pk)
            pd = pc.to_dict() if pc is not None else {"tp": 0, "fp": 0, "fn": 0}
            if tuple(rc.get(k, 0) for k in ("TP", "FP", "FN")) != (pd["tp"], pd["fp"], pd["fn"]):
                cls = goal_interpretation_class(rk, rc, pd, several)
                out.append(
                    Disagreement("goal-interpretation", file.model, ident, f"{cls}:{pk}", rc, pd)
                )
    return summarize(results), out


def goal_interpretation_figures(summary: Mapping[str, Any]) -> dict[str, float]:
    """The reference's summary keys as Table 9 names them (node = state, edge =
    relation)."""
    out: dict[str, float] = {}
    for rk, pk in (*GI_TYPES, ("all", "overall")):
        for m in ("precision", "recall", "f1"):
            out[f"{pk}_{m}"] = float(summary[f"{rk}_{m}"])
    return out


def planproof_goal_figures(summary: Mapping[str, Any]) -> dict[str, float]:
    ge = summary["goal_evaluation"]
    return {
        f"{k}_{m}": float(ge[k][m])
        for k in ("state", "relation", "action", "overall")
        for m in ("precision", "recall", "f1")
    }


# --------------------------------------------------------------------- transition modeling
TM_CATEGORIES = (
    "object_states",
    "object_orientation",
    "object_affordance",
    "spatial_relations",
    "non-spatial_relations",
)


def classify_transition_modeling(
    file: PublishedFile, ref: dict[str, Any]
) -> tuple[dict[str, Any], list[Disagreement]]:
    from planproof.metrics.transition_modeling.evaluate import evaluate_responses
    from planproof.pddl.eai import load_eai_pddl

    data = load_eai_pddl("virtualhome")
    rows = json.loads(file.path.read_text(encoding="utf-8"))
    # the reference plans with Fast Downward (lama-first, 100 s); pyperplan gives the same
    # verdict on every published GPT-4o task (296 of 296) for a tenth of the CPU time
    report = evaluate_responses(data, rows, engine="pyperplan", timeout=100.0)
    out: list[Disagreement] = []
    for r in report.tasks:
        rt = ref["tasks"].get(r.identifier, {})
        if "planner_success" not in rt:
            cls = "reference-unreadable" if rt.get("format_wrong") else "reference-no-verdict"
            out.append(
                Disagreement(
                    "transition-modeling", file.model, r.identifier, cls, rt, r.planner_found
                )
            )
            continue
        if bool(rt["planner_success"]) != bool(r.planner_found):
            cls = "planner-success-differs"
            out.append(
                Disagreement(
                    "transition-modeling",
                    file.model,
                    r.identifier,
                    cls,
                    rt["planner_success"],
                    {"found": r.planner_found, "status": r.planner_status},
                )
            )
    return report.summary(), out


def transition_figures(summary: Mapping[str, Any]) -> dict[str, float]:
    out: dict[str, float] = {}
    for cat in TM_CATEGORIES:
        for k, v in summary.get(cat, {}).items():
            out[f"{cat}_{k}"] = float(v)
    return out


CLASSIFIERS: dict[str, Classifier] = {
    "goal-interpretation": classify_goal_interpretation,
    "transition-modeling": classify_transition_modeling,
}
REFERENCE_FIGURES: dict[str, Callable[[Mapping[str, Any]], dict[str, float]]] = {
    "goal-interpretation": goal_interpretation_figures,
    "transition-modeling": transition_figures,
}


# ----------------------------------------------------------------------------- driver
def compare(
    modules: Sequence[str], models: Sequence[str], workdir: Path, *, log: bool = True
) -> dict[str, Any]:
    """Run both evaluators on every (module, model) file and classify the differences."""
    cells: dict[str, dict[str, Any]] = defaultdict(dict)
    disagreements: list[Disagreement] = []
    for module in modules:
        for f in published_files(module, "virtualhome"):
            if models and f.model not in models:
                continue
            t0 = time.perf_counter()
            ref, cached = reference_published_cached(module, f.model, f.path, workdir)
            t1 = time.perf_counter()
            summary, diffs = CLASSIFIERS[module](f, ref)
            t2 = time.perf_counter()
            disagreements += diffs
            cells[module][f.model] = {
                "reference": REFERENCE_FIGURES[module](ref["summary"]),
                "reference_summary": ref["summary"],
                "reference_seconds": ref["seconds"],
                "reference_cached": cached,
                "planproof_summary": summary,
                "planproof_seconds": t2 - t1,
                "disagreements": dict(Counter(d.cls for d in diffs)),
            }
            if log:
                print(
                    f"{module} {f.model}: reference {ref['seconds']:.0f} s"
                    f"{' (cached)' if cached else ''} [{t1 - t0:.1f} s now], planproof "
                    f"{t2 - t1:.1f} s, {len(diffs)} disagreements",
                    file=sys.stderr,
                    flush=True,
                )
    return {"cells": cells, "disagreements": [asdict(d) for d in disagreements]}


def write_figures(result: Mapping[str, Any], versions: Mapping[str, str]) -> Path:
    """The reference's figures per module x model, as package data, with how they were
    made. Cells already in the file for modules or models not run now are kept."""
    try:
        doc = json.loads(FIGURES_PATH.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        doc = {"modules": {}}
    doc["produced_by"] = {
        "command": "python benchmarks/differential_published.py --write-figures",
        "evaluator": f"virtualhome-eval {VHE_WHEEL.version} (sha256 {VHE_WHEEL.sha256})",
        "how": "each module's unmodified evaluate_results on one published file at a time, "
        "in its own venv (benchmarks/reference_env.py, flavours 'published' and "
        "'published-transition-modeling'), driven by benchmarks/reference_published_driver.py",
        "versions": dict(versions),
    }
    for module, by_model in result["cells"].items():
        slot = doc["modules"].setdefault(module, {})
        for model, cell in by_model.items():
            slot[model] = {
                "figures": cell["reference"],
                "seconds": round(float(cell["reference_seconds"]), 1),
            }
    FIGURES_PATH.parent.mkdir(parents=True, exist_ok=True)
    FIGURES_PATH.write_text(json.dumps(doc, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return FIGURES_PATH


def cached_reference_cells(modules: Sequence[str]) -> dict[str, Any]:
    """The reference's figures for every (module, model) whose verdict is already in the
    cache (nothing is run), in the shape :func:`write_figures` reads."""
    from reference_env import published_run_path

    cells: dict[str, dict[str, Any]] = defaultdict(dict)
    for module in modules:
        for f in published_files(module, "virtualhome"):
            path = published_run_path(module, f.model, f.path)
            if path.is_file():
                ref = json.loads(path.read_text(encoding="utf-8"))
                cells[module][f.model] = {
                    "reference": REFERENCE_FIGURES[module](ref["summary"]),
                    "reference_seconds": ref["seconds"],
                }
    return {"cells": cells}


def markdown(result: Mapping[str, Any]) -> str:
    lines = ["# planproof vs the published reference (virtualhome-eval 0.1.1)", ""]
    for module, by_model in result["cells"].items():
        lines += [f"## {module}", ""]
        keys = sorted({k for c in by_model.values() for k in c["reference"]})
        show = [k for k in keys if k.startswith(("overall", "state", "action", "relation"))]
        show = show or keys
        lines.append("| model | " + " | ".join(show) + " | disagreements |")
        lines.append("|---" * (len(show) + 2) + "|")
        for model, c in by_model.items():
            pp = (
                planproof_goal_figures(c["planproof_summary"])
                if module == "goal-interpretation"
                else {}
            )
            vals = [f"{c['reference'][k]:.1f} / {pp.get(k, float('nan')):.1f}" for k in show]
            dis = ", ".join(f"{k} {v}" for k, v in sorted(c["disagreements"].items()))
            lines.append(f"| {MODELS.get(model, model)} | " + " | ".join(vals) + f" | {dis} |")
        lines.append("")
    by_cls = Counter((d["module"], d["cls"]) for d in result["disagreements"])
    lines += ["## Disagreements by class", ""]
    lines += [f"- {m} `{c}`: {n} task(s)" for (m, c), n in sorted(by_cls.items())]
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--module", action="append", choices=sorted(CLASSIFIERS))
    ap.add_argument("--model", action="append", choices=sorted(MODELS))
    ap.add_argument("--write-figures", action="store_true")
    ap.add_argument(
        "--cached-only",
        action="store_true",
        help="with --write-figures: record the reference verdicts already cached, run nothing",
    )
    args = ap.parse_args(argv)
    modules = args.module or sorted(CLASSIFIERS)
    versions = {"virtualhome_eval": VHE_WHEEL.version}
    if args.cached_only:
        print(f"wrote {write_figures(cached_reference_cells(modules), versions)}")
        return 0
    with tempfile.TemporaryDirectory(prefix="planproof-published-") as tmp:
        result = compare(modules, args.model or [], Path(tmp))
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "differential_published.json").write_text(
        json.dumps(result, indent=1, default=str) + "\n", encoding="utf-8"
    )
    (RESULTS / "differential_published.md").write_text(markdown(result), encoding="utf-8")
    if args.write_figures:
        print(f"wrote {write_figures(result, versions)}", file=sys.stderr)
    print(markdown(result))
    return 0


assert set(CLASSIFIERS) <= set(PUBLISHED_MODULES)

if __name__ == "__main__":
    sys.exit(main())
