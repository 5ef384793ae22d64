"""The whole-file driver's ``--skip-single-variate`` (BEHAVIOR planner batches only) leaves
every figure and holistic verdict of the reference as it is:

- on the reference's own source (virtualhome-eval 0.1.1's transition-modeling
  ``evaluate_results``, read from the pinned wheel): the single-variate planner calls
  (``complete_pddl_domain(..., action_name_key=...)``) feed only counters its summary never
  reads, and the holistic call feeds ``success_by_task_type_dict``, the planner success;
- on the reference's real code in its venv (Fast Downward 23.06): the driver's wrappers
  skip exactly the single-variate call, before Fast Downward is started, and the holistic
  call still plans, with Fast Downward's own times recorded;
- the option reaches the driver only for BEHAVIOR planner batches.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from planproof.data import DataUnavailableError
from planproof.data.published import VHE_WHEEL, published_files
from tests.helpers import needed_resource

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

import reference_whole_files as rw

BENCH = Path(__file__).resolve().parents[1] / "benchmarks"

EVALUATOR = "virtualhome_eval/evaluation/transition_modeling/scripts/evaluate_results.py"


def _evaluator_source() -> ast.FunctionDef:
    needed_resource(
        lambda: published_files("transition-modeling", "behavior"),
        DataUnavailableError,
        "the published wheel",
    )
    with zipfile.ZipFile(VHE_WHEEL.path()) as zf:
        tree = ast.parse(zf.read(EVALUATOR).decode("utf-8"))
    (fn,) = (
        n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == "evaluate_results"
    )
    return fn


def _is_domain_call(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "complete_pddl_domain"
    )


def _updated(stmts: list[ast.stmt]) -> set[str]:
    """The names whose entries ``stmts`` change (``x[...][...] += 1``)."""
    out: set[str] = set()
    for stmt in stmts:
        for node in ast.walk(stmt):
            if isinstance(node, ast.AugAssign):
                target = node.target
                while isinstance(target, ast.Subscript):
                    target = target.value  # type: ignore[assignment]
                if isinstance(target, ast.Name):
                    out.add(target.id)
    return out


def _planner_tests(fn: ast.FunctionDef) -> dict[str, set[str]]:
    """For each planner test (``single`` / ``holistic``): the counters the ``try`` after
    its ``complete_pddl_domain`` call changes when the plan is found."""
    tests: dict[str, set[str]] = {}
    for node in ast.walk(fn):
        body = getattr(node, "body", None)
        if not isinstance(body, list):
            continue
        for i, stmt in enumerate(body[:-1]):
            if isinstance(stmt, ast.Assign) and _is_domain_call(stmt.value):
                call = stmt.value
                assert isinstance(call, ast.Call)
                kind = (
                    "single"
                    if any(k.arg == "action_name_key" for k in call.keywords)
                    else "holistic"
                )
                nxt = body[i + 1]
                assert isinstance(nxt, ast.Try), ast.dump(nxt)
                assert kind not in tests
                tests[kind] = _updated(nxt.body)
    return tests


def test_single_variate_tests_feed_no_figure_of_the_references_summary() -> None:
    fn = _evaluator_source()
    tests = _planner_tests(fn)
    assert tests == {
        "single": {"task_variate_control_by_type", "action_variate_control"},
        "holistic": {"success_by_task_type_dict"},
    }
    (summary,) = (
        n.value
        for n in ast.walk(fn)
        if isinstance(n, ast.Assign)
        and any(isinstance(t, ast.Name) and t.id == "summary" for t in n.targets)
    )
    called = {id(n.func) for n in ast.walk(summary) if isinstance(n, ast.Call)}
    read = {n.id for n in ast.walk(summary) if isinstance(n, ast.Name) and id(n) not in called}
    assert read == {"full_predicate_type_res_dict", "success_by_task_type_dict"}
    # and what the summary reads is never changed by a single-variate test's counters
    assert not tests["single"] & read


UNITS = st.builds(
    rw.Unit,
    module=st.sampled_from(rw.ORDER),
    model=st.sampled_from(("gpt-4o-2024-05-13", "llama-3-8b-chat")),
    path=st.just(Path("x.json")),
    index=st.integers(-1, 40),
    size=st.sampled_from(sorted(set(rw.BATCH.values()))),
)


@given(UNITS, st.booleans())
def test_only_behavior_planner_batches_get_the_option(unit: rw.Unit, skip: bool) -> None:
    options = rw.planner_options(unit, skip_single_variate=skip)
    behavior_planner = unit.module == rw.BEHAVIOR and unit.index >= 0
    assert options["planner_calls"] == behavior_planner
    assert options["single_variate"] == (not (skip and behavior_planner))
    if not behavior_planner:  # VirtualHome batches and BEHAVIOR's logic form: as before
        assert options == {"single_variate": True, "planner_calls": False}


PROBE = r"""
import importlib, json, os, sys, time
sys.path.insert(0, sys.argv[1])
import reference_published_driver as d
er = d._module("transition_modeling")
fd = importlib.import_module("virtualhome_eval.simulation.evolving_graph.pddlgym_planners.fd")
calls = d.PlannerCalls(skip_single=sys.argv[2] == "skip")
calls.install(er, fd.FD)
tmp = sys.argv[3]
os.chdir(tmp)
pd = os.path.join(tmp, "pd.pddl")
with open(pd, "w") as f:
    f.write("(define (domain d) (:requirements :strips) (:predicates (p) (q) (r))")
prob = os.path.join(tmp, "prob.pddl")
with open(prob, "w") as f:
    f.write("(define (problem x) (:domain d) (:init (p)) (:goal (r)))")
ops = {
    "a": {"action_parameters": "()", "action_preconditions": "(p)", "action_effects": "(q)"},
    "b": {"action_parameters": "()", "action_preconditions": "(q)", "action_effects": "(r)"},
}
planner = fd.FD()
out = {}
for key in ("a", None):  # the evaluator's order: single-variate tests, then holistic
    path = er.complete_pddl_domain(ops, ops, pd, "t", tmp, action_name_key=key)
    try:
        out[str(key)] = planner.plan_from_pddl(path, prob, timeout=100)
    except Exception as exc:
        out[str(key)] = str(exc)
out["calls"] = calls.take()
print("RESULT " + json.dumps(out))
"""


def _probe(mode: str, tmp: Path) -> tuple[dict[str, object], int]:
    """The probe's result and how many Fast Downward calls were started (each makes one
    temporary SAS file, ``fd.py``'s ``_get_cmd_str``, in ``TMPDIR``)."""
    from reference_env import PUBLISHED_TM_FD2306, venv_dir

    venv = venv_dir(PUBLISHED_TM_FD2306)
    python = venv / "bin" / "python"
    if not python.is_file():
        pytest.skip("the reference's Fast Downward 23.06 venv is not built")
    work, sas = tmp / "work", tmp / "sas"
    work.mkdir(parents=True)
    sas.mkdir(parents=True)
    env = {"PATH": "/usr/bin:/bin", "TMPDIR": str(sas), "PYTHONHASHSEED": "2"}
    proc = subprocess.run(
        [str(python), "-s", "-P", "-c", PROBE, str(BENCH), mode, str(work)],
        capture_output=True,
        text=True,
        env=env,
        check=True,
        timeout=600,
    )
    (line,) = (x for x in proc.stdout.splitlines() if x.startswith("RESULT "))
    return json.loads(line.removeprefix("RESULT ")), len(list(sas.iterdir()))


@pytest.mark.data
def test_the_driver_skips_exactly_the_single_variate_call(tmp_path: Path) -> None:
    import reference_published_driver as d

    skipped, started = _probe("skip", tmp_path / "skip")
    assert skipped["a"] == d.SKIPPED_SINGLE
    # the holistic call plans, as the reference does (its plan reader keeps a space)
    assert [str(x).strip() for x in skipped["None"]] == ["a", "b"]  # type: ignore[attr-defined]
    single, holistic = skipped["calls"]  # type: ignore[misc]
    assert single == {"kind": "single", "skipped": True}
    assert holistic["kind"] == "holistic" and holistic["solved"] is True
    assert holistic["expanded"] >= 1 and holistic["total_time"] >= holistic["search_time"] >= 0
    assert started == 1  # Fast Downward never started for the skipped call
    full, started = _probe("run", tmp_path / "run")
    assert full["a"] == full["None"] == skipped["None"]
    assert [c["kind"] for c in full["calls"]] == ["single", "holistic"]  # type: ignore[union-attr]
    assert all(c["solved"] for c in full["calls"])  # type: ignore[union-attr]
    assert started == 2
