"""``verify`` agrees with the simulators: each simulator task exported to PDDL, read back
and replayed by ``check_plan`` gives the simulator's own verdict on the gold plan and on
mutated plans (dropped, duplicated, swapped and garbled steps)."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from planproof.ltl.ast import TRUE, is_temporal
from planproof.metrics.transition_modeling.export import pddl_plan, task_to_pddl
from planproof.metrics.transition_modeling.replay import check_plan, pddl_task
from planproof.pddl.reader import read_domain, read_problem
from planproof.simulators.core import Action, Task, replay
from tests.pddl.conftest import sample
from tests.pddl.test_verify import _mutants


def _agree(task: Task, stride: int) -> int:
    goal = task.goal if not is_temporal(task.goal) else TRUE
    try:
        dt, pt = task_to_pddl(task.world, task.initial, goal, task.identifier)
    except ValueError:  # a counting goal (forpairs, forn) has no PDDL form
        dt, pt = task_to_pddl(task.world, task.initial, TRUE, task.identifier)
    ptask = pddl_task(read_domain(dt), read_problem(pt))
    plans: Sequence[tuple[Action, ...]] = [tuple(task.gold), *_mutants(tuple(task.gold), stride)]
    for plan in plans:
        sim = replay(task.world, task.initial, plan)
        ver = check_plan(ptask, pddl_plan(task.world, plan))
        s_err, v_err = sim.first_error, ver.replay.first_error
        assert sim.executable == ver.executable, (task.identifier, plan)
        assert (
            (s_err.index, s_err.kind)
            if s_err
            else None is ((v_err.index, v_err.kind) if v_err else None)
        ), (task.identifier, plan, s_err, v_err)
        assert sim.final == ver.replay.final
    return len(plans)


@pytest.mark.data
@pytest.mark.parametrize("dataset", ["virtualhome", "behavior"])
def test_verify_agrees_with_simulator(dataset: str) -> None:
    if dataset == "virtualhome":
        mod = pytest.importorskip("planproof.simulators.virtualhome.tasks")
        tasks = mod.load_virtualhome_tasks()
    else:
        mod = pytest.importorskip("planproof.simulators.behavior.tasks")
        tasks = mod.load_behavior_tasks()
    # BEHAVIOR gold plans are long (30+ steps): mutate every third step
    stride = 1 if dataset == "virtualhome" else 3
    chosen = [t for t in sample(tasks, 12 if dataset == "virtualhome" else 5) if t.gold]
    assert chosen
    assert sum(_agree(t, stride) for t in chosen) > len(chosen)
