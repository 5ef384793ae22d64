"""Long commands show a progress bar (or a spinner) on a terminal and nothing in a pipe
(issue 18): a person never waits on a silent screen. Each command runs on a small
input, so the test bounds work; what it checks is that the bar is drawn at all."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from planproof.commands.progress import LOG_MIN_TOTAL, running_total
from tests.cli.helpers import ROOT, planproof, planproof_on_a_terminal

EXAMPLES = ROOT / "planproof" / "examples"
PDDL = EXAMPLES / "pddl"

LONG_COMMANDS: dict[str, tuple[list[str], str]] = {
    "plan": (
        ["plan", "--domain", str(PDDL / "virtualhome.pddl"), "--problem",
         str(PDDL / "browse_internet.pddl"), "--engine", "pyperplan", "--timeout", "120"],
        "planning with pyperplan (time limit 120 s)",
    ),
    "ltl sat": (
        ["ltl", "sat", "on(a.1) and not on(b.2)"],
        "solving with Z3 (budget 10,000,000 units)",
    ),
    "ltl entails": (
        ["ltl", "entails", "on(a.1)", "on(a.1) or on(b.2)", "--timeout", "30"],
        "solving with Z3 (budget 30,000,000 units)",
    ),
    "evaluate teach": (
        ["evaluate", "teach", str(EXAMPLES / "teach" / "coffee.json")],
        "replaying 1 episodes",
    ),
    "evaluate housekeep": (
        ["evaluate", "housekeep", str(EXAMPLES / "housekeep" / "real_episodes.jsonl"),
         "--workers", "1"],
        "scoring ",
    ),
    "evaluate partnr": (["evaluate", "partnr", "--workers", "1"], "replaying "),
}  # fmt: skip


@pytest.mark.parametrize("command", sorted(LONG_COMMANDS))
def test_a_long_command_draws_progress_on_a_terminal_only(command: str) -> None:
    argv, title = LONG_COMMANDS[command]
    argv = [*argv, "--json"]
    on_tty, terminal = planproof_on_a_terminal(*argv)
    assert on_tty.code in (0, 1), terminal[-500:]
    assert title in terminal, terminal[-500:]
    piped = planproof(*argv)
    assert piped.code == on_tty.code and title not in piped.err


def test_a_running_total_advances_by_the_difference() -> None:
    steps: list[int] = []
    to = running_total(lambda n=1: steps.append(n))
    for total in (3, 3, 10, 12):
        to(total)
    assert steps == [3, 0, 7, 2] and sum(steps) == 12


def _counter(tmp_path: Path, bits: int) -> tuple[str, str]:
    """A binary counter whose only plan counts from 0 to 2**bits - 1: legal, solvable,
    and far beyond any planner within a second at 20 bits (a million steps)."""
    acts = []
    for i in range(bits):
        low = range(i)
        pre = " ".join([f"(z b{i})", *(f"(one b{j})" for j in low)])
        eff = " ".join(
            [f"(one b{i})", f"(not (z b{i}))", *(f"(z b{j}) (not (one b{j}))" for j in low)]
        )
        acts.append(
            f"(:action inc{i} :parameters () :precondition (and {pre}) :effect (and {eff}))"
        )
    domain = tmp_path / "counter.pddl"
    domain.write_text(
        "(define (domain counter) (:requirements :strips) (:predicates (one ?b) (z ?b))\n"
        + "\n".join(acts)
        + ")"
    )
    names = " ".join(f"b{i}" for i in range(bits))
    problem = tmp_path / "p.pddl"
    problem.write_text(
        f"(define (problem c) (:domain counter) (:objects {names}) "
        f"(:init {' '.join(f'(z b{i})' for i in range(bits))}) "
        f"(:goal (and {' '.join(f'(one b{i})' for i in range(bits))})))"
    )
    return str(domain), str(problem)


@pytest.mark.parametrize("engine", ["pyperplan", "fast-downward"])
def test_plan_honours_its_time_limit_on_legal_but_endless_work(engine: str, tmp_path: Path) -> None:
    domain, problem = _counter(tmp_path, 20)
    r = planproof("plan", "--domain", domain, "--problem", problem, "--engine", engine,
                  "--timeout", "1", "--json")  # fmt: skip
    doc = json.loads(r.out)
    assert r.code == 1 and doc["status"] == "timeout", r.out[-300:]
    small_domain, small_problem = _counter(tmp_path, 3)  # the same task, 7 steps: solved
    ok = planproof("plan", "--domain", small_domain, "--problem", small_problem,
                   "--engine", engine, "--json")  # fmt: skip
    assert ok.code == 0 and len(json.loads(ok.out)["plan"]) == 7


@pytest.mark.parametrize("command", ["sat", "entails"])
def test_ltl_solving_honours_its_time_limit(command: str, tmp_path: Path) -> None:
    """Pigeonhole over 30 pigeons and 29 holes: unsatisfiable, and far beyond Z3 within
    a budget of 50,000 units (``--timeout 0.05``: nominal seconds of Z3's resource budget,
    not a wall-clock limit); the answer is "unknown (resource limit)" (exit 3), not a wait."""
    universe = tmp_path / "u.json"
    objects = {f"p.{i}": ["pigeon"] for i in range(30)} | {f"h.{i}": ["hole"] for i in range(29)}
    universe.write_text(json.dumps(objects))
    php = (
        "(forall x - pigeon. exists y - hole. in(x, y)) and "
        "(forall y - hole. ((forn 0 x - pigeon. in(x, y)) or (forn 1 x - pigeon. in(x, y))))"
    )
    formulas = [php] if command == "sat" else [php, "false"]
    r = planproof("ltl", command, *formulas, "--universe", str(universe), "--timeout", "0.05")
    assert r.code == 3 and "unknown (resource limit)" in r.out, r.err[-300:]


@pytest.mark.data
def test_a_long_step_writes_plain_progress_lines_into_a_log(tmp_path: Path) -> None:
    """Off a terminal, a step of at least LOG_MIN_TOTAL items writes one line per tenth
    of the work (a rule on work, not time: the same lines on any machine)."""
    argv = ["evaluate", "action-sequencing", "--dataset", "virtualhome", "--gold"]
    done = planproof(*argv, "--output", str(tmp_path), "--json")
    assert done.code == 0, done.err
    n = json.loads(done.out)["tasks"]
    assert n >= LOG_MIN_TOTAL
    lines = [x for x in done.err.splitlines() if x.startswith(f"scoring {n} tasks: ")]
    assert [x.split("(")[1].split(")")[0] for x in lines] == [f"{p} %" for p in range(10, 101, 10)]
    assert lines[-1].startswith(f"scoring {n} tasks: {n}/{n} (100 %)")
