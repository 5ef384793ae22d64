"""The symbolic VirtualHome world on the real EAI tasks: every gold plan replays, and
mutated gold plans get the error category the paper's procedure implies, at the right
step."""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from planproof.metrics.action_sequencing import evaluate_actions, evaluate_response, summarize
from planproof.pddl.schema import ForallEffect, When
from planproof.simulators.core import Action, ErrorKind, Replay, Task, replay
from planproof.simulators.virtualhome import load_virtualhome_tasks, virtualhome_domain

pytestmark = pytest.mark.data

GOLD_FAILURES = {"688_1": "relation: holds_lh(character.65, water_glass.1000)"}
"""Gold plans that miss their own goal, with the goal they miss (docs/virtualhome.md)."""


@pytest.fixture(scope="module")
def tasks(eai_wheel: object) -> tuple[Task, ...]:
    return load_virtualhome_tasks()


def test_all_task_identifiers_load(tasks: Sequence[Task]) -> None:
    assert len(tasks) == 342
    assert len({t.identifier for t in tasks}) == 342
    assert sum(t.goal is not None and str(t.goal) != "Top()" for t in tasks) == 338


def test_goal_counts_match_the_paper(tasks: Sequence[Task]) -> None:
    # Table 2: 340 state, 299 relation, 162 action goals; one relation goal of the data is
    # a duplicate of another in the same task, which the reference removes as we do.
    assert sum(len(t.parts.states) for t in tasks) == 340
    assert sum(len(t.parts.actions) for t in tasks) == 162
    assert sum(len(t.parts.relations) for t in tasks) == 298


def test_every_gold_plan_executes_and_reaches_its_goal(tasks: Sequence[Task]) -> None:
    results = [evaluate_actions(t, t.gold) for t in tasks]
    assert all(r.executable for r in results), [
        (r.identifier, r.error) for r in results if not r.executable
    ]
    failed = {r.identifier: r.unmet_goals for r in results if not r.success}
    assert {k: v[0] for k, v in failed.items()} == GOLD_FAILURES
    s = summarize(results)
    assert s["trajectory_evaluation"]["execution_success_rate"] == 100.0


def test_every_action_of_the_action_space_is_an_operator() -> None:
    space = {
        "CLOSE",
        "DRINK",
        "FIND",
        "WALK",
        "GRAB",
        "LOOKAT",
        "LOOKAT_SHORT",
        "LOOKAT_LONG",
        "OPEN",
        "POINTAT",
        "PUTBACK",
        "PUTIN",
        "PUTOBJBACK",
        "RUN",
        "SIT",
        "STANDUP",
        "SWITCHOFF",
        "SWITCHON",
        "TOUCH",
        "TURNTO",
        "WATCH",
        "WIPE",
        "PUTON",
        "PUTOFF",
        "GREET",
        "DROP",
        "READ",
        "LIE",
        "POUR",
        "TYPE",
        "PUSH",
        "PULL",
        "MOVE",
        "WASH",
        "RINSE",
        "SCRUB",
        "SQUEEZE",
        "PLUGIN",
        "PLUGOUT",
        "CUT",
        "EAT",
        "RELEASE",
    }  # the 42 actions of the wheel's resources/virtualhome/action_space.json
    d = virtualhome_domain()
    assert all(d.lookup(a) is not None for a in space)


# --- mutations -------------------------------------------------------------------------


def _run(task: Task, plan: Sequence[Action]) -> Replay:
    return replay(task.world, task.initial, plan)


def _conditional(name: str) -> bool:
    op = virtualhome_domain().lookup(name)
    assert op is not None
    return any(isinstance(e, When | ForallEffect) for e in op.effects)


def _held_before(task: Task, run: Replay, index: int, action: Action) -> bool:
    """Independent oracle for wrong order: the interpreter (not the compiled conditions
    the simulator uses) evaluates the precondition in every earlier state."""
    bound = task.world.bind(action, index)
    assert not isinstance(bound, type(run.first_error))
    pre = bound.operator.precondition  # type: ignore[union-attr]
    return any(
        task.world.facts(s).holds(pre, bound.env)  # type: ignore[union-attr]
        for s in run.trace.states[:-1]
    )


SETTINGS = settings(
    max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


@SETTINGS
@given(data=st.data())
def test_dropping_a_step(tasks: Sequence[Task], data: st.DataObject) -> None:
    task = data.draw(st.sampled_from(tasks))
    i = data.draw(st.integers(0, len(task.gold) - 1))
    plan = task.gold[:i] + task.gold[i + 1 :]
    run = _run(task, plan)
    err = run.first_error
    if err is None:
        return
    assert err.index >= i  # the prefix is the gold prefix, which runs
    assert err.kind in {ErrorKind.MISSING_STEP, ErrorKind.WRONG_ORDER}  # gold is afforded
    assert (err.kind is ErrorKind.WRONG_ORDER) == _held_before(
        task, run, err.index, plan[err.index]
    )


@SETTINGS
@given(data=st.data())
def test_swapping_neighbours(tasks: Sequence[Task], data: st.DataObject) -> None:
    task = data.draw(st.sampled_from([t for t in tasks if len(t.gold) >= 2]))
    i = data.draw(st.integers(0, len(task.gold) - 2))
    plan = list(task.gold)
    plan[i], plan[i + 1] = plan[i + 1], plan[i]
    run = _run(task, plan)
    err = run.first_error
    if err is None:
        return
    assert err.index >= i
    assert err.kind in {ErrorKind.MISSING_STEP, ErrorKind.WRONG_ORDER}
    assert (err.kind is ErrorKind.WRONG_ORDER) == _held_before(
        task, run, err.index, plan[err.index]
    )


@SETTINGS
@given(data=st.data())
def test_duplicating_a_step(tasks: Sequence[Task], data: st.DataObject) -> None:
    task = data.draw(st.sampled_from(tasks))
    i = data.draw(st.integers(0, len(task.gold) - 1))
    plan = (*task.gold[: i + 1], task.gold[i], *task.gold[i + 1 :])
    run = _run(task, plan)
    if run.first_error is not None:
        assert run.first_error.index > i
    if not _conditional(task.gold[i].name):
        # a repeated unconditional action either runs again or is redundant: its
        # effects already hold, so it is never a blocking error
        assert run.first_error is None or run.first_error.index != i + 1


_NEEDS = {
    "grab": "grabbable",
    "switchon": "has_switch",
    "switchoff": "has_switch",
    "sit": "sittable",
    "lie": "lieable",
    "plugin": "has_plug",
    "plugout": "has_plug",
}


@SETTINGS
@given(data=st.data())
def test_a_non_affordant_argument_is_an_affordance_error(
    tasks: Sequence[Task], data: st.DataObject
) -> None:
    candidates = [(t, i) for t in tasks for i, a in enumerate(t.gold) if a.name.lower() in _NEEDS]
    task, i = data.draw(st.sampled_from(candidates))
    prop = _NEEDS[task.gold[i].name.lower()]
    have = {a.args[0].name for a in task.world.static if a.pred == prop}
    others = [
        o
        for o in task.world.universe.of_type("object")
        if o not in have and "character" not in task.world.universe.types_of(o)
    ]
    if not others:
        return
    obj = data.draw(st.sampled_from(sorted(others)))
    plan = list(task.gold)
    plan[i] = Action(plan[i].name, (obj,))
    err = _run(task, plan).first_error
    assert err is not None and err.index == i and err.kind is ErrorKind.AFFORDANCE
    assert f"{prop}({obj})" in err.unmet


@SETTINGS
@given(data=st.data())
def test_invented_objects_actions_and_arities_are_grammar_errors(
    tasks: Sequence[Task], data: st.DataObject
) -> None:
    task = data.draw(st.sampled_from(tasks))
    i = data.draw(st.integers(0, len(task.gold) - 1))
    how = data.draw(st.sampled_from(["object", "action", "arity"]))
    plan = list(task.gold)
    if how == "object":
        plan[i] = Action(plan[i].name, ("unicorn.99999",) * len(plan[i].args) or ("unicorn.1",))
        want = ErrorKind.HALLUCINATION
    elif how == "action":
        plan.insert(i, Action("TELEPORT", plan[i].args))
        want = ErrorKind.HALLUCINATION
    else:
        plan[i] = Action(plan[i].name, (*plan[i].args, plan[i].args[0] if plan[i].args else "x"))
        want = ErrorKind.ARGUMENT_COUNT if plan[i].args[-1] != "x" else ErrorKind.HALLUCINATION
    err = _run(task, plan).first_error
    assert err is not None and err.kind is want and err.index == i


@settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(text=st.text(max_size=300) | st.binary(max_size=200).map(lambda b: b.decode("latin-1")))
def test_garbage_responses_get_a_grammar_category(tasks: Sequence[Task], text: str) -> None:
    r = evaluate_response(tasks[0], text, "virtualhome")
    if not any(c in text for c in "[{("):
        # nothing that could hold a plan: always a parsing error, with no goal met
        assert r.error is not None and r.error.kind is ErrorKind.PARSING
        assert not r.success and sum(g.met for g in r.goals.values()) == 0
    else:
        assert r.executable or r.error is not None


def test_command_scores_a_responses_file_entry_by_entry(
    tasks: Sequence[Task], tmp_path: object
) -> None:
    import json
    from pathlib import Path

    from planproof.cli import main
    from planproof.interface.responses import render_virtualhome

    t0, t1, t2 = tasks[0], tasks[1], tasks[2]
    dropped = t1.gold[:1] + t1.gold[2:]
    entries = [
        {
            "identifier": t0.identifier,
            "llm_output": "```json\n" + render_virtualhome(t0.gold) + "\n```",
        },
        {"identifier": t1.identifier, "llm_output": render_virtualhome(dropped)},
        {"identifier": t2.identifier, "llm_output": "I cannot help with that."},
        {"identifier": "no_such_task", "llm_output": "{}"},
        {"identifier": t0.identifier, "llm_output": "duplicate, ignored"},
        {"llm_output": "entry without identifier"},
    ]
    out = Path(str(tmp_path))
    (out / "r.json").write_text(json.dumps(entries), encoding="utf-8")
    code = main(
        [
            "evaluate",
            "action-sequencing",
            "--dataset",
            "virtualhome",
            "--responses",
            str(out / "r.json"),
            "--output",
            str(out / "res"),
            "--json",
        ]
    )
    assert code == 0
    rows = {
        r["identifier"]: r
        for r in map(json.loads, (out / "res" / "results.jsonl").read_text().splitlines())
    }
    assert set(rows) == {t0.identifier, t1.identifier, t2.identifier}
    assert rows[t0.identifier]["success"] and rows[t0.identifier]["notes"]
    want = evaluate_actions(t1, dropped)
    assert rows[t1.identifier]["error_type"] == (want.error.kind.value if want.error else None)
    assert rows[t2.identifier]["error_type"] == "parsing"
    summary = json.loads((out / "res" / "summary.json").read_text())
    assert summary["tasks"] == 3 and summary["unknown_identifiers"] == ["no_such_task"]
    assert summary["file_notes"], "the duplicate and the entry without identifier are noted"
