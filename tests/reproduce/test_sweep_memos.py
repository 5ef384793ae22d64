"""The sweep's memos (docs/reproduce.md, speed section) give what the unmemoised code
gives: a plan's replay and score per task, the reference executor's replay per (world,
state, actions), the task's scene graph per task, the parse of an answer; and
action sequencing's two cells of one file scored in one job equal each cell scored alone."""

from __future__ import annotations

from functools import cache
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from planproof.metrics import action_sequencing as m
from planproof.metrics import reference_subgoal_decomposition as rsd
from planproof.metrics.reference_executor import replay_reference_executor
from planproof.simulators.core import Action

pytestmark = pytest.mark.data

IDENTS = ("481_2", "27_2", "417_1", "850_1")
VERBS = ("WALK", "FIND", "GRAB", "OPEN", "CLOSE", "PUTBACK", "PUTIN", "SWITCHON", "RELEASE")


@cache
def _tasks() -> dict[str, Any]:
    from planproof.runs.modules import load_tasks

    return {t.identifier: t for t in load_tasks("virtualhome")}


def _task(ident: str) -> Any:
    return _tasks()[ident]


@st.composite
def plans(draw: st.DrawFn) -> tuple[Any, tuple[Action, ...]]:
    """A real task and a plan mixing its gold steps with actions on its objects (some
    executable, some not, some of the wrong arity or on unknown objects)."""
    task = _task(draw(st.sampled_from(IDENTS)))
    objects = sorted(task.world.objects)
    step = st.one_of(
        st.sampled_from(task.gold) if task.gold else st.nothing(),
        st.builds(
            Action,
            st.sampled_from(VERBS),
            st.lists(st.sampled_from([*objects, "nothing.999"]), min_size=0, max_size=2).map(tuple),
        ),
    )
    return task, tuple(draw(st.lists(step, max_size=8)))


def _fresh_score(task: Any, plan: tuple[Action, ...], notes: tuple[str, ...]) -> Any:
    m._SCORED.pop(id(task), None)
    return m.evaluate_actions(task, plan, notes)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(plans(), st.lists(st.text(max_size=5), max_size=2).map(tuple))
def test_remembered_score_equals_a_fresh_one(
    case: tuple[Any, tuple[Action, ...]], notes: tuple[str, ...]
) -> None:
    task, plan = case
    first = m.evaluate_actions(task, plan, ("other note",))
    again = m.evaluate_actions(task, list(plan), notes)  # remembered (a list: same plan)
    fresh = _fresh_score(task, plan, notes)
    assert again == fresh
    assert again.notes == notes and first.notes == ("other note",)
    assert first == fresh.__class__(**{**fresh.__dict__, "notes": ("other note",)})
    again.goals.clear()  # a caller's change to its result does not reach the memo
    assert m.evaluate_actions(task, plan, notes) == fresh


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(plans(), st.integers(min_value=0, max_value=3))
def test_remembered_reference_replay_equals_the_executor(
    case: tuple[Any, tuple[Action, ...]], prefix: int
) -> None:
    """From the initial state or from the state a gold prefix reaches."""
    task, plan = case
    start = task.initial
    if prefix and task.gold:
        start = replay_reference_executor(task, task.gold[:prefix])[0]
    direct = replay_reference_executor(rsd._At(task.world, start), plan)
    for _ in range(2):  # computed, then remembered
        final, ran, additional, error = rsd._executed(task.world, start, plan)
        assert (final, list(ran), additional, error) == direct


def test_scene_graph_read_once_is_the_graph() -> None:
    from planproof.simulators.virtualhome import convert

    task = _task("481_2")  # chair.356 is in its scene graph, not in its world
    ids = [int(n.rsplit(".", 1)[1]) for n in task.world.objects if n.rsplit(".", 1)[-1].isdigit()]
    wanted = [("chair", 356), ("sofa", 356), ("nothing", 1)]
    remembered = convert.scene_extension("481_2", wanted, ids)
    assert "chair.356" in remembered["objects"]
    convert._init_graph.cache_clear()
    assert convert.scene_extension("481_2", wanted, ids) == remembered
    assert convert._init_graph("481_2") is convert._init_graph("481_2")


def test_two_readings_of_a_file_in_one_job_equal_each_cell_alone() -> None:
    """``reproduce``'s job for action sequencing's two cells of one file (a one-slice
    :class:`Shard`) gives each cell's result as :func:`evaluate_cell` does, with every
    memo emptied in between."""
    from planproof.commands.reproduce import _jobs
    from planproof.runs.published_sweep import (
        Shard,
        evaluate_cell,
        evaluate_job,
        merge_shards,
        published_cells,
    )

    cells = published_cells(["action-sequencing"], ["gpt-4o-2024-05-13"])
    assert [c.repeated for c in cells] == ["steps", "last"]
    jobs = _jobs(cells, [0, 1])
    assert len(jobs) == 1
    job, members = jobs[0]
    assert isinstance(job, Shard) and job.count == 1 and members == [0, 1]
    together = evaluate_job(job)
    m._SCORED.clear()
    m._parsed.cache_clear()
    for cell, part in zip(cells, together, strict=True):
        got = merge_shards(cell, [part])
        alone = evaluate_cell(cell)
        for key in ("cell", "summary", "figures", "tasks"):
            assert got[key] == alone[key], key


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(plans(), st.data())
def test_remembered_diagnosis_equals_a_fresh_one(
    case: tuple[Any, tuple[Action, ...]], data: st.DataObject
) -> None:
    """The failed subgoal's diagnosis after a refined prefix (here: any plan), remembered per
    task, is :func:`_diagnose`'s."""
    from planproof.ltl.ast import Atom, Const, Not
    from planproof.metrics import subgoal_decomposition as sd

    task, prefix = case
    objects = sorted(task.world.objects)
    pred = data.draw(st.sampled_from(["next_to", "inside", "ontop", "holds_rh", "facing"]))
    atom = Atom(pred, tuple(Const(o) for o in data.draw(st.permutations(objects))[:2]))
    f = data.draw(st.sampled_from([atom, Not(atom)]))
    want = sd._diagnose(task, prefix, f)
    assert sd._diagnosed(task, prefix, f) == want  # computed
    assert sd._diagnosed(task, list(prefix), f) == want  # remembered


@settings(max_examples=80, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            [
                "NEXT_TO(character.65, kitchen.1)",
                "ONTOP(cup.2, table.3) and INSIDE(cup.2, kitchen.1)",
                "not OPEN(fridge.4) or CLOSED(fridge.4)",
                "WALK(kitchen.1",
                "ONTOP(cup.2, table.3) and",
                "",
            ]
        ),
        min_size=1,
        max_size=4,
    )
)
def test_remembered_reference_syntax_equals_the_parser(lines: list[str]) -> None:
    """The reference parser's verdict on a plan's formula, remembered, is the parser's."""
    from lark.exceptions import LarkError

    text = " then ".join(lines)
    try:
        fresh = rsd._syntax().parse(text)
        want = True
    except LarkError:
        fresh, want = None, False
    assert rsd.in_reference_syntax(lines) is want
    assert rsd.in_reference_syntax(tuple(lines)) is want  # remembered
    assert rsd._tree(lines) == fresh  # the remembered tree is the parser's
