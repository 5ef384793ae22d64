"""Action sequencing: planproof against the published reference (virtualhome-eval 0.1.1)
on the published LLM answers, task by task, every disagreement in a class.

    python benchmarks/differential_published_as.py [--model STEM ...] [--every 6]

The reference simulates each plan with deep copies of every state (minutes per file), so
by default every 6th task of each file is evaluated (57 of 342; ``--every 1`` for all);
its verdicts are cached by the sampled file's content (``reference_env``). planproof
reads the same answers twice: as it does (repeated keys are steps) and as the reference
does (``repeated="last"``, json.loads). Each class is documented with a minimal example
and a test in ``docs/reference-differences.md`` ("Published answers: action sequencing").
Writes ``benchmarks/results/differential_published_as.md`` / ``.json``.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from reference_env import reference_published_cached

from planproof.data.published import MODELS, published_files

RESULTS = Path(__file__).resolve().parent / "results"
NOT_IN_VALID_ACTIONS = frozenset({"PLUGIN", "PLUGOUT", "RELEASE"})
"""Actions of the VirtualHome executor missing from the reference's ``valid_actions``."""


def classify(ref: Mapping[str, Any], mine: Any, collapsed: Any) -> str | None:
    """Why the reference's verdict on one task differs from planproof's (None: agree).
    ``mine`` reads repeated keys as steps, ``collapsed`` as json.loads does."""
    if "skipped" in ref:
        return "gold-test"
    if "success" not in ref:
        return "reference-no-verdict"
    ref_exec = bool(ref.get("executable", True))
    ref_ok = bool(ref["success"])
    if (ref_exec, ref_ok) == (mine.executable, mine.success):
        return None
    if (ref_exec, ref_ok) == (collapsed.executable, collapsed.success):
        return "repeated-keys"
    err = str(ref.get("error_type") or "")
    if err.startswith("parsing"):
        return "tolerant-parsing"
    if err.startswith("hallucination") and any(
        a.name.upper() in NOT_IN_VALID_ACTIONS for a in collapsed.actions
    ):
        return "valid-actions"
    if ref_ok and not ref_exec:
        return "success-without-execution"
    if ref_exec == collapsed.executable and not ref_ok and collapsed.success:
        matched, goals = ref.get("matched", [0, 0, 0]), ref.get("goals", [0, 0, 0])
        if matched[:2] == goals[:2] and matched[2] < goals[2]:
            warned = {w.action.name for w in collapsed.warnings if w.action is not None}
            if warned:
                return "additional-goal-action"
            return "ordered-action-goals"
    return simulator_cause(ref, collapsed)


def simulator_cause(ref: Mapping[str, Any], collapsed: Any) -> str:
    """The two executors differ on one step: which rule (``simulator:<cause>``), where it
    was traced; ``simulator`` alone where it was not (docs/reference-differences.md)."""
    message = str(collapsed.error.message) if collapsed.error is not None else ""
    warned = {w.action.name.upper() for w in collapsed.warnings if w.action is not None}
    error_action = str(ref.get("error_action") or "")
    if ref.get("error_type") == "missing_step" and collapsed.executable:
        name = error_action[1:].split("]", 1)[0] if error_action.startswith("[") else ""
        if name and name in warned:
            return "simulator:check-order"
        if name in ("PUTIN", "PUTBACK") and _grabbed_before(error_action, collapsed.actions):
            return "simulator:grab-closeness"
    if "precondition of switchon(" in message or "precondition of switchoff(" in message:
        return "simulator:switch-without-state"
    if "precondition of open(" in message and "not on(" in message:
        return "simulator:open-while-on"
    if "precondition of putback(" in message and ", character." in message:
        return "simulator:put-on-the-character"
    if "unmet: next_to(character." in message and ref.get("executable", True):
        return "simulator:closeness-after-walk"
    return "simulator"


def _grabbed_before(error_action: str, actions: Sequence[Any]) -> bool:
    """Is the object of the reference's failed ``[PUT*] <name> (id) ...`` step grabbed by an
    earlier step of the plan?"""
    ids = re.findall(r"\((\d+)\)", error_action)
    return bool(ids) and any(
        a.name.upper() == "GRAB" and a.args and str(a.args[0]).endswith(f".{ids[0]}")
        for a in actions
    )


def run(models: Sequence[str], every: int) -> dict[str, Any]:
    from planproof.metrics.action_sequencing import evaluate_response
    from planproof.runs.modules import load_tasks

    tasks = {t.identifier: t for t in load_tasks("virtualhome")}
    out: dict[str, Any] = {"every": every, "models": {}, "disagreements": []}
    with tempfile.TemporaryDirectory() as tmp:
        for f in published_files("action-sequencing", "virtualhome"):
            if models and f.model not in models:
                continue
            rows = json.loads(f.path.read_text(encoding="utf-8"))[::every]
            sample = Path(tmp) / f"{f.model}.json"
            sample.write_text(json.dumps(rows), encoding="utf-8")
            ref, cached = reference_published_cached(
                "action-sequencing", f.model, sample, Path(tmp) / "work"
            )
            counts: Counter[str] = Counter()
            for row in rows:
                ident = str(row["identifier"])
                text = str(row["llm_output"])
                mine = evaluate_response(tasks[ident], text, "virtualhome")
                collapsed = evaluate_response(tasks[ident], text, "virtualhome", repeated="last")
                r = ref["tasks"].get(ident, {"reference-no-record": True})
                cls = classify(r, mine, collapsed)
                counts[cls or "agree"] += 1
                if cls not in (None, "gold-test"):
                    out["disagreements"].append(
                        {
                            "model": f.model,
                            "identifier": ident,
                            "class": cls,
                            "reference": r,
                            "planproof": {
                                "executable": mine.executable,
                                "success": mine.success,
                                "error": mine.error_type,
                                "message": mine.error.message if mine.error else None,
                                "plan": [str(a) for a in collapsed.actions],
                            },
                        }
                    )
            out["models"][f.model] = {
                "tasks": len(rows),
                "classes": dict(counts),
                "reference_seconds": ref["seconds"],
                "reference_cached": cached,
                "reference_summary": ref["summary"],
            }
            print(f"{f.model}: {dict(counts)} (reference {ref['seconds']:.0f} s)", file=sys.stderr)
    return out


def markdown(result: Mapping[str, Any]) -> str:
    lines = [
        "# Action sequencing: planproof vs virtualhome-eval 0.1.1 on the published answers",
        "",
        f"Every {result['every']}th task of each file. Classes: docs/reference-differences.md.",
        "",
        "| model | tasks | agree | classes |",
        "|---|---|---|---|",
    ]
    total: Counter[str] = Counter()
    for model, m in result["models"].items():
        classes = {k: v for k, v in m["classes"].items() if k != "agree"}
        total.update(m["classes"])
        lines.append(
            f"| {MODELS.get(model, model)} | {m['tasks']} | {m['classes'].get('agree', 0)} | "
            + ", ".join(f"{k} {v}" for k, v in sorted(classes.items()))
            + " |"
        )
    lines += ["", "Totals: " + ", ".join(f"{k} {v}" for k, v in sorted(total.items())), ""]
    for d in result["disagreements"]:
        ref, mine = d["reference"], d["planproof"]
        lines.append(
            f"- {d['model']} {d['identifier']} **{d['class']}**: reference "
            f"exec={ref.get('executable', True)} success={ref.get('success')} "
            f"({ref.get('error_type')}); planproof exec={mine['executable']} "
            f"success={mine['success']} ({mine['error']})"
        )
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--model", nargs="+", default=[])
    ap.add_argument("--every", type=int, default=6)
    args = ap.parse_args(argv)
    result = run(args.model, max(1, args.every))
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "differential_published_as.json").write_text(
        json.dumps(result, indent=1, default=str), encoding="utf-8"
    )
    (RESULTS / "differential_published_as.md").write_text(markdown(result), encoding="utf-8")
    print(markdown(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
