"""Plan reading and ``planproof verify``: exit codes, trace, agreement with the core
replay on gold and mutated plans, start-up cost."""

from __future__ import annotations

import json
import subprocess
import sys
from importlib import resources
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from planproof.cli import main
from planproof.metrics.transition_modeling.replay import check_plan, pddl_task, to_actions
from planproof.pddl.eai import EaiPddl
from planproof.pddl.plan_io import PlanFormatError, read_plan
from planproof.pddl.reader import declare_missing_objects
from planproof.simulators.core import Action, ErrorKind, replay

EXAMPLES = Path(str(resources.files("planproof.examples").joinpath("pddl")))
DOMAIN = EXAMPLES / "virtualhome.pddl"
PROBLEM = EXAMPLES / "browse_internet.pddl"

NAME = st.from_regex(r"[a-z][a-z0-9_]{0,8}", fullmatch=True)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(NAME, st.lists(NAME, max_size=3)), max_size=6), st.integers(0, 3))
def test_plan_formats_agree(steps: list[tuple[str, list[str]]], style: int) -> None:
    expected = tuple((n, tuple(a)) for n, a in steps)
    if style == 0:
        text = "\n".join(" ".join([n, *a]) for n, a in steps)
    elif style == 1:
        text = "\n".join("(" + " ".join([n, *a]) + ")" for n, a in steps)
    elif style == 2:
        text = "\n".join(f"{n}({', '.join(a)})" for n, a in steps)
    else:
        text = json.dumps([{"action": n, "args": a} for n, a in steps])
    assert read_plan(text) == expected


def test_plan_text_tolerates_numbering_and_comments() -> None:
    text = "; a plan\n0: (walk_towards character shower)\n\n1. grab character cup  # why\n"
    assert read_plan(text) == (
        ("walk_towards", ("character", "shower")),
        ("grab", ("character", "cup")),
    )


@pytest.mark.parametrize("text", ["(walk ch@r)", '[{"x": 1}]', "[1, 2]", '{"steps": []}', "[bad"])
def test_bad_plans_raise(text: str) -> None:
    with pytest.raises(PlanFormatError) as info:
        read_plan(text)
    assert info.value.line >= 1


def _run(*argv: str) -> tuple[int, str]:
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(["verify", *argv])
    return code, out.getvalue()


def test_verify_valid_plan() -> None:
    code, out = _run(
        "--domain",
        str(DOMAIN),
        "--problem",
        str(PROBLEM),
        "--plan",
        str(EXAMPLES / "browse_internet.plan"),
    )
    assert code == 0
    assert "VALID: 10 of 10 steps executed" in out
    assert "+(plugged_in computer)" in out
    assert out.splitlines()[0].startswith("  1  ")  # steps count from 1, as VAL does


def test_verify_invalid_plan_reports_first_failure() -> None:
    code, out = _run(
        "--domain", str(DOMAIN), "--problem", str(PROBLEM),
        "--plan", str(EXAMPLES / "browse_internet_bad.plan"), "--json",
    )  # fmt: skip
    assert code == 1
    data = json.loads(out)
    assert data["valid"] is False
    err = data["error"]
    # switch_on needs the computer plugged in (third step, counted from 1)
    assert err["step"] == 3 and err["error_type"] == "precondition"
    assert "(plugged_in computer)" in err["unmet"]
    assert data["executed"] == 2 and data["failed_step"] == 3
    assert err["repair"] == ["(plug_in character computer)"]


def test_verify_goal_not_reached(tmp_path: Path) -> None:
    plan = tmp_path / "p.plan"
    plan.write_text("walk_into character home_office\n")
    code, out = _run(
        "--domain", str(DOMAIN), "--problem", str(PROBLEM), "--plan", str(plan), "--json"
    )
    assert code == 1
    data = json.loads(out)
    assert data["executable"] and not data["goal_holds"]
    assert "(on computer)" in data["unmet_goal"]


@pytest.mark.parametrize(
    ("domain", "plan", "needle"),
    [
        ("(define (domain x)", "walk_into character home_office", "never closed"),
        (None, "walk_into character home@office", "not an action or object name"),
        (None, None, "cannot read"),
    ],
)
def test_verify_bad_input_exit_2(
    tmp_path: Path, domain: str | None, plan: str | None, needle: str
) -> None:
    d = tmp_path / "d.pddl"
    d.write_text(domain if domain is not None else DOMAIN.read_text())
    p = tmp_path / "p.plan"
    if plan is not None:
        p.write_text(plan)
    code, out = _run("--domain", str(d), "--problem", str(PROBLEM), "--plan", str(p), "--json")
    assert code == 2
    data = json.loads(out)
    assert data["ok"] is False and needle in data["message"]


def test_verify_does_not_import_unified_planning() -> None:
    code = (
        "import sys, argparse\n"
        "from planproof.commands import verify\n"
        "p = argparse.ArgumentParser(); verify.add_arguments(p)\n"
        f"verify.run(p.parse_args(['--domain', {str(DOMAIN)!r}, '--problem', {str(PROBLEM)!r},"
        f" '--plan', {str(EXAMPLES / 'browse_internet.plan')!r}, '--json']))\n"
        "print('UP' if 'unified_planning' in sys.modules else 'NO-UP')\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip().endswith("NO-UP")


def _mutants(plan: tuple[Action, ...], stride: int = 1) -> list[tuple[Action, ...]]:
    """Drop a step, swap it with the next, duplicate it, garble its name: at every
    ``stride``-th step."""
    out: list[tuple[Action, ...]] = []
    for i in range(0, len(plan), stride):
        out.append(plan[:i] + plan[i + 1 :])
        out.append(plan[: i + 1] + plan[i:])
        out.append((*plan[:i], Action(plan[i].name + "x", plan[i].args), *plan[i + 1 :]))
        if i + 1 < len(plan):
            out.append((*plan[:i], plan[i + 1], plan[i], *plan[i + 2 :]))
    return out


@pytest.mark.data
def test_gold_plans_valid_and_mutants_agree_with_replay(vh: EaiPddl, bh: EaiPddl) -> None:
    """Every gold plan verifies; on mutated plans, verify's verdict is the core replay's
    (same first error, same step) and a mutant is valid only if it reaches the goal."""
    kinds: set[ErrorKind] = set()
    for data in (vh, bh):
        for n, (ident, lines) in enumerate(sorted(data.gold_plans.items())):
            task = pddl_task(data.domain, declare_missing_objects(data.domain, data.problem(ident)))
            gold = to_actions(read_plan("\n".join(lines)))
            assert check_plan(task, gold).valid, ident
            if n % 20:
                continue
            for m in _mutants(gold):
                c = check_plan(task, m)
                r = replay(task.world, task.initial, m)
                assert (c.replay.first_error, c.executable) == (r.first_error, r.executable)
                if r.first_error:
                    kinds.add(r.first_error.kind)
    assert {ErrorKind.HALLUCINATION, ErrorKind.MISSING_STEP} <= kinds
