"""Z3 queries are bounded by a resource budget (Z3's deterministic ``rlimit``), never by
the wall clock: the verdict is the same on an idle and on a loaded machine, and a spent
budget is reported as ``budget``, never as a verdict."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from planproof.boundary import InputError, check_rlimit
from planproof.boundary.limits import MAX_RLIMIT, RLIMIT_PER_SECOND
from planproof.boundary.options import rlimit_for_seconds
from planproof.cli import main
from planproof.ltl.parser import parse
from planproof.ltl.smt import BUDGET, entails, equivalent, satisfiable
from planproof.ltl.trace import Universe

ROOT = Path(__file__).resolve().parents[2]

PHP_TEXT = (
    "(forall x - pigeon. exists y - hole. in(x, y)) and "
    "(forall y - hole. ((forn 0 x - pigeon. in(x, y)) or (forn 1 x - pigeon. in(x, y))))"
)
PHP = parse(PHP_TEXT)
"""n + 1 pigeons in n holes, one pigeon a hole at most: unsat, and a proof of it costs Z3
work exponential in n (10 holes: about 0.7 M units, over a CPU second)."""


def pigeons(holes: int) -> Universe:
    objs = {f"p.{i}": {"pigeon"} for i in range(holes + 1)}
    return Universe.of(objs | {f"h.{i}": {"hole"} for i in range(holes)})


def test_a_spent_budget_is_reported_as_budget_never_a_verdict() -> None:
    """30 pigeons in 29 holes within 50,000 units: ``budget``, the same twice, to the unit."""
    u = pigeons(29)
    first = satisfiable(PHP, u, rlimit=50_000)
    again = satisfiable(PHP, u, rlimit=50_000)
    assert first.unknown and not first.sat and first.model is None
    assert first.status == BUDGET and first.reason == BUDGET
    assert (again.status, again.work) == (first.status, first.work)
    assert first.work >= 50_000  # Z3 stopped because the count reached the budget
    proof = entails(PHP, parse("false"), u, rlimit=50_000)
    assert proof.unknown and not proof and proof.status == BUDGET
    same = equivalent(PHP, parse("false"), u, rlimit=50_000)
    assert not same and same.status == BUDGET


def test_a_legacy_timeout_is_a_budget_in_nominal_seconds() -> None:
    """``timeout=0.05`` is 50,000 units (not 50 ms): the same answer as ``rlimit=50_000``."""
    u = pigeons(29)
    legacy = satisfiable(PHP, u, timeout=0.05)
    assert legacy.status == BUDGET
    assert legacy.work == satisfiable(PHP, u, rlimit=50_000).work
    assert rlimit_for_seconds(0.05) == 50_000 == 0.05 * RLIMIT_PER_SECOND
    assert rlimit_for_seconds(86_400) == MAX_RLIMIT  # clamped: Z3 would wrap a larger count


def test_the_same_query_decided_within_its_budget_spends_the_same_units() -> None:
    u = pigeons(8)
    unbounded = satisfiable(PHP, u, rlimit=None)
    assert unbounded.status == "unsat" and unbounded.work > 50_000
    exact = satisfiable(PHP, u, rlimit=unbounded.work + 1)
    assert (exact.status, exact.work) == ("unsat", unbounded.work)
    short = satisfiable(PHP, u, rlimit=unbounded.work // 2)
    assert short.status == BUDGET


@pytest.mark.parametrize("bad", [0, -1, MAX_RLIMIT + 1, 2**32, True, 1.5, "10"])
def test_a_budget_must_be_a_whole_number_z3_can_hold(bad: object) -> None:
    with pytest.raises(InputError, match="resource budget"):
        check_rlimit(bad)  # type: ignore[arg-type]
    with pytest.raises(InputError):
        satisfiable(parse("p()"), pigeons(1), rlimit=bad)  # type: ignore[arg-type]


@settings(max_examples=25, deadline=None)
@given(st.integers(min_value=1, max_value=6), st.integers(min_value=1, max_value=40_000))
def test_a_budget_changes_only_whether_the_query_is_decided(holes: int, budget: int) -> None:
    """Within any budget the answer is the unbounded one or ``budget``, never another
    verdict; and the same query with the same budget gets the same answer and spend."""
    u = pigeons(holes)
    free = satisfiable(PHP, u, rlimit=None)
    bounded = satisfiable(PHP, u, rlimit=budget)
    assert bounded.status in (free.status, BUDGET)
    assert (bounded.status == BUDGET) == (budget <= free.work)
    again = satisfiable(PHP, u, rlimit=budget)
    assert (again.status, again.work) == (bounded.status, bounded.work)


CHILD = """
import json, os, signal, sys, threading, time
import z3
from planproof.ltl.parser import parse
from planproof.ltl.smt import satisfiable
from planproof.ltl.trace import Universe
holes = int(sys.argv[3])
objs = {f"p.{i}": {"pigeon"} for i in range(holes + 1)}
u = Universe.of(objs | {f"h.{i}": {"hole"} for i in range(holes)})
f = parse(sys.argv[1])
satisfiable(parse("p()"), u)  # z3 loaded before the measured query
in_check, done = threading.Event(), threading.Event()
check = z3.Solver.check
def checking(self, *args):
    in_check.set()
    return check(self, *args)
z3.Solver.check = checking
def stop_mid_query():  # Z3's check releases the GIL: this thread runs while Z3 works
    in_check.wait()
    time.sleep(0.01)
    if not done.is_set():
        os.kill(os.getpid(), signal.SIGSTOP)  # the parent sends SIGCONT
threading.Thread(target=stop_mid_query, daemon=True).start()
t0 = time.monotonic()
res = satisfiable(f, u, rlimit=int(sys.argv[2]))
done.set()
print(json.dumps([res.status, res.work, time.monotonic() - t0]), flush=True)
"""

STOPPED = 2.0
"""Seconds the child is stopped in the middle of its query: far more than the query's
whole CPU time, as on a machine at a load of several times its cores."""


def _state(pid: int) -> str:
    """The process's state letter (``T``: stopped), from ``/proc``; ``""`` once it is gone."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return ""
    return stat.rsplit(")", 1)[1].split()[0]


def _stopped_run(holes: int, budget: int) -> tuple[str, int, float]:
    """The child stops itself inside Z3's ``check`` (a thread of its own, so the stop lands
    in the query whatever the load); the parent sees it stopped, waits, continues it."""
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    with subprocess.Popen(
        [sys.executable, "-c", CHILD, PHP_TEXT, str(budget), str(holes)],
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    ) as proc:
        assert proc.stdout is not None
        while proc.poll() is None and _state(proc.pid) not in ("T", "t"):
            time.sleep(0.005)
        if proc.poll() is None:
            time.sleep(STOPPED)
            proc.send_signal(signal.SIGCONT)
        status, work, wall = json.loads(proc.stdout.readline())
        assert proc.wait(timeout=600) == 0
    return str(status), int(work), float(wall)


def test_the_verdict_is_the_same_when_the_process_is_stopped_mid_query() -> None:
    """The child is stopped (SIGSTOP) for 2 s while Z3 works on a 10-pigeon proof (about
    0.2 M units, a fifth of a CPU second idle): a wall-clock limit of a second would now
    answer ``unknown`` (Z3's own timer counts the stop: checked by hand, a 3 s limit and a
    4 s stop gave ``unknown``, reason ``timeout``); the budget answers exactly what an
    unhindered run answers, unit for unit. The stop is checked to have landed inside the
    query (its wall time exceeds the stop)."""
    holes, budget = 9, RLIMIT_PER_SECOND
    unhindered = satisfiable(PHP, pigeons(holes), rlimit=budget)
    assert unhindered.status == "unsat"
    landed = False
    for _ in range(5):  # a parent descheduled past the query's end would miss it
        status, work, wall = _stopped_run(holes, budget)
        assert (status, work) == (unhindered.status, unhindered.work)
        if wall >= STOPPED:
            landed = True
            break
    assert landed, "the stop never landed inside the query"


def test_ltl_sat_names_a_spent_budget_and_exits_3(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--rlimit`` and the legacy ``--timeout`` (nominal seconds) both give a budget; a
    spent one is ``status: budget``, exit 3, and says so in words."""
    universe = tmp_path / "universe.json"
    universe.write_text(json.dumps({o: sorted(pigeons(29).types_of(o)) for o in pigeons(29).names}))
    args = ["ltl", "sat", PHP_TEXT, "--universe", str(universe)]
    for budget_args in (["--rlimit", "20000"], ["--timeout", "0.02"]):
        code = main(["--json", *args, *budget_args])
        data = json.loads(capsys.readouterr().out)
        assert code == 3 and data["status"] == "budget" and data["satisfiable"] is None
    code = main([*args, "--rlimit", "20000"])
    assert code == 3
    assert "unknown (resource limit)" in capsys.readouterr().out
    code = main(["--json", "ltl", "sat", "p(a) and not p(a)", "--rlimit", "20000"])
    assert code == 1 and json.loads(capsys.readouterr().out)["status"] == "unsat"
