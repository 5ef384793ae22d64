"""Run the reference implementation's LTL parser and evaluator on a batch of goals and traces.

This script is executed by the interpreter of the *reference* virtual environment
(``benchmarks/reference_env.py`` builds it with ``eai-eval`` and ``lark`` only); planproof
never imports eai-eval, and this script never imports planproof. It reads one JSON job on
stdin (or from the file named by its first argument) and writes one JSON result on stdout,
so a whole differential test or benchmark costs a single process start.

Job::

    {"protocol": 1, "cap_s": 10.0, "repeat": 1,
     "cases": [{"id": "...", "goal": "<formula text>", "predicates": [...], "actions": [...],
                "objects": ["cup.1", ...],
                "traces": [{"states": [[["ON", ["cup.1"]], ...], ...],
                            "actions": [["GRAB", ["cup.1"]], ...]}]}]}

Result: ``{"protocol": 1, "versions": {...}, "results": [{"id", "parse", "traces"}]}`` where
``parse`` is ``{"ms": float}`` or an outcome below, and each trace gives ``{"value": bool,
"ms": float, "build_ms": float}`` or ``{"error": <exception class>, "message": str}`` or
``{"timeout": true}``. An exception lark raises while building the formula is reported
as the exception it wraps (``VisitError`` → e.g. ``AssertionError``). ``cap_s`` caps each
single parse or evaluation (SIGALRM); ``repeat`` > 1 times a call up to that many times
(within a 2 s budget) and reports the median.
"""

from __future__ import annotations

import importlib
import json
import signal
import statistics
import sys
import time
from collections.abc import Callable
from functools import partial
from importlib import metadata
from pathlib import Path
from types import FrameType
from typing import Any

PROTOCOL = 1
REPEAT_BUDGET_S = 2.0

tl = importlib.import_module("virtualhome_eval.tl_formula.simple_tl")
tl_parser = importlib.import_module("virtualhome_eval.tl_formula.simple_tl_parser")


class CapExceeded(Exception):
    """A single call ran past the job's ``cap_s``."""


def _on_alarm(_signum: int, _frame: FrameType | None) -> None:
    raise CapExceeded


def _failure(exc: BaseException) -> dict[str, Any]:
    inner = getattr(exc, "orig_exc", None)  # lark.exceptions.VisitError wraps the real one
    cause = inner if isinstance(inner, BaseException) else exc
    return {"error": type(cause).__name__, "message": str(cause)[:300]}


def _call(fn: Callable[[], Any], cap_s: float) -> tuple[Any, float]:
    """``fn()`` and its wall time in ms; raises :class:`CapExceeded` past ``cap_s``."""
    signal.setitimer(signal.ITIMER_REAL, cap_s)
    try:
        t0 = time.perf_counter()
        value = fn()
        return value, (time.perf_counter() - t0) * 1e3
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)


def _measure(fn: Callable[[], Any], cap_s: float, repeat: int) -> dict[str, Any]:
    """Outcome of ``fn``: its value and median time, an error, or a timeout."""
    try:
        value, ms = _call(fn, cap_s)
        times = [ms]
        spent = ms / 1e3
        while len(times) < repeat and spent < REPEAT_BUDGET_S:
            _, ms = _call(fn, cap_s)
            times.append(ms)
            spent += ms / 1e3
    except CapExceeded:
        return {"timeout": True}
    except Exception as exc:  # the reference's own failures are results, not driver bugs
        return _failure(exc)
    return {"value": value, "ms": statistics.median(times)}


def _trajectory(objects: list[str], trace: dict[str, Any]) -> Any:
    states = [
        tl.State(objects, [tl.Proposition(name, list(args)) for name, args in state])
        for state in trace["states"]
    ]
    actions = [tl.Action(name, list(args)) for name, args in trace["actions"]]
    return tl.StateActionSequence(states, actions)


def run_case(case: dict[str, Any], cap_s: float, repeat: int) -> dict[str, Any]:
    predicates, actions = list(case["predicates"]), list(case["actions"])
    parsed = _measure(
        lambda: tl_parser.parse_simple_tl(case["goal"], predicates, actions), cap_s, repeat
    )
    out: dict[str, Any] = {"id": case["id"], "traces": []}
    if "value" not in parsed:
        out["parse"] = parsed
        return out
    expression = parsed.pop("value")
    out["parse"] = parsed
    objects = list(case["objects"])
    for trace in case.get("traces", []):
        built = _measure(partial(_trajectory, objects, trace), cap_s, 1)
        if "value" not in built:
            out["traces"].append(built)
            continue
        trajectory = built.pop("value")
        result = _measure(partial(tl.eval_simple_tl, expression, trajectory), cap_s, repeat)
        if "value" in result:
            result["value"] = bool(result["value"])
            result["build_ms"] = built["ms"]
        out["traces"].append(result)
    return out


def main(argv: list[str]) -> int:
    raw = Path(argv[1]).read_text(encoding="utf-8") if len(argv) > 1 else sys.stdin.read()
    job = json.loads(raw)
    if job.get("protocol") != PROTOCOL:
        print(
            f"reference_driver: protocol {job.get('protocol')!r}, expected {PROTOCOL}",
            file=sys.stderr,
        )
        return 2
    signal.signal(signal.SIGALRM, _on_alarm)
    cap_s = float(job.get("cap_s", 60.0))
    repeat = max(1, int(job.get("repeat", 1)))
    results = [run_case(case, cap_s, repeat) for case in job["cases"]]
    versions = {name: metadata.version(name) for name in ("eai-eval", "lark")}
    versions["python"] = sys.version.split()[0]
    json.dump({"protocol": PROTOCOL, "versions": versions, "results": results}, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
