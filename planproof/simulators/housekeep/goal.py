"""The tidy goal of a Housekeep episode in the goal logic, its Z3 satisfiability check and
an oracle rearrangement.

Housekeep gives the agent no instruction: the goal is implicit in the preference data.
Over the objects ``O`` of an episode it reads ``∧_{o∈O} ∨_{r∈correct(o)} on(o, r)`` plus an
empty hand, where ``correct(o)`` are the receptacles *of this scene* whose (object, room,
receptacle) triple has more than half of the correct votes. It is checked on the final
state of a replay (``F G tidy`` on a finite trace is the final state).

Satisfiability is not a formality: an object with no correct receptacle in the scene makes
the goal ``false``, and capacities can make the correct receptacles too small for all the
objects at once. :func:`check_goal` decides it with Z3 under the world's state axioms
(an object is held or on exactly one receptacle, the hand is empty iff nothing is held,
no receptacle holds more than its capacity) and returns a witness placement.
"""

from __future__ import annotations

from dataclasses import dataclass

from planproof.boundary.limits import DEFAULT_RLIMIT
from planproof.ltl.ast import (
    And,
    Binder,
    Const,
    Exists,
    Forall,
    Formula,
    ForN,
    Implies,
    Not,
    Or,
    Var,
)
from planproof.ltl.ast import Atom as A
from planproof.ltl.simplify import conj, disj
from planproof.ltl.trace import State, ground_atom
from planproof.simulators.housekeep.episode import Episode
from planproof.simulators.housekeep.preferences import Judgement, PreferenceStore
from planproof.simulators.housekeep.world import build_world


def targets(episode: Episode, store: PreferenceStore) -> dict[str, tuple[str, ...]]:
    """Each object's correct receptacles in this scene, best first."""
    return {o.id: episode.correct_receptacles(store, o.id) for o in episode.objects}


def tidy_goal(episode: Episode, store: PreferenceStore, *, hand_empty: bool = True) -> Formula:
    """``∧_o ∨_{r∈correct(o)} on(o, r)`` (∧ ``handempty(agent)``); ``false`` when some object
    has no correct receptacle in the scene."""
    parts: list[Formula] = [
        disj(*(ground_atom("on", o, r) for r in recs))
        for o, recs in targets(episode, store).items()
    ]
    if hand_empty:
        parts.append(ground_atom("handempty", episode.agent))
    return conj(*parts)


def is_tidy(episode: Episode, store: PreferenceStore, placement: dict[str, str | None]) -> bool:
    """Every object on one of its correct receptacles (the goal read on a placement)."""
    return all(
        r is not None and episode.judgement(store, o, r).is_correct for o, r in placement.items()
    )


def state_axioms(episode: Episode) -> tuple[Formula, ...]:
    """What every reachable state of the world satisfies, as goal-logic formulas."""
    agent = Const(episode.agent)
    x, y = Var("x"), Var("y")
    bx, by = Binder("x", "item"), Binder("y", "receptacle")
    held = A("holding", (agent, x))
    on_xy = A("on", (x, y))
    axioms: list[Formula] = [
        Forall(bx, Not(And((held, Exists(by, on_xy))))),
        Forall(bx, Or((held, ForN(1, by, on_xy)))),
        And(
            (
                Implies(A("handempty", (agent,)), Not(Exists(bx, held))),
                Implies(Not(Exists(bx, held)), A("handempty", (agent,))),
            )
        ),
    ]
    for r in episode.receptacles:
        if r.capacity is None:
            continue
        on_r = A("on", (x, Const(r.id)))
        counts = [ForN(k, bx, on_r) for k in range(r.capacity + 1)]
        axioms.append(counts[0] if len(counts) == 1 else Or(tuple(counts)))
    return tuple(axioms)


@dataclass(frozen=True)
class GoalCheck:
    """Outcome of :func:`check_goal`. ``witness`` is a tidy placement Z3 found (object →
    receptacle); ``reasons`` say why the goal cannot hold when it is unsatisfiable."""

    satisfiable: bool
    unknown: bool
    witness: dict[str, str] | None
    reasons: tuple[str, ...]
    goal: Formula

    def to_dict(self) -> dict[str, object]:
        from planproof.ltl.printer import to_text

        return {
            "satisfiable": self.satisfiable,
            "unknown": self.unknown,
            "witness": self.witness,
            "reasons": list(self.reasons),
            "goal": to_text(self.goal),
        }


def check_goal(
    episode: Episode, store: PreferenceStore, *, rlimit: int = DEFAULT_RLIMIT
) -> GoalCheck:
    """Is the episode's tidy goal satisfiable under the state axioms? (Z3, within ``rlimit``
    resource units: the same answer under any load)."""
    from planproof.ltl.smt import satisfiable

    goal = tidy_goal(episode, store)
    universe = build_world(episode).world.universe
    res = satisfiable(goal, universe, state_axioms(episode), rlimit=rlimit)
    reasons: list[str] = []
    if not res.sat and not res.unknown:
        reasons = [
            f"{o} ({episode.item_by_id[o].category}) has no correct receptacle in this scene"
            for o, recs in targets(episode, store).items()
            if not recs
        ] or ["the correct receptacles cannot hold all the objects at once (capacity)"]
    elif res.unknown:  # named, never read as satisfiable or not
        reasons = [f"not decided: Z3 answered {res.status} (budget {rlimit:,} units)"]
    witness: dict[str, str] | None = None
    if res.sat and res.model is not None:
        witness = {}
        for a in res.model:
            if a.pred == "on":
                o, r = (t.name for t in a.args if isinstance(t, Const))
                witness[o] = r
    return GoalCheck(res.sat, res.unknown, witness, tuple(reasons), goal)


def placement_state(episode: Episode, placement: dict[str, str]) -> State:
    """The on/handempty facts of a placement, for evaluating the goal on it."""
    atoms = {ground_atom("on", o, r) for o, r in placement.items()}
    return frozenset({*atoms, ground_atom("handempty", episode.agent)})


# --- oracle -------------------------------------------------------------------------------


def _score(j: Judgement, mrr: str) -> float:
    return j.mrr_all if mrr == "all" else j.mrr


def oracle_assignment(
    episode: Episode, store: PreferenceStore, *, mrr: str = "correct"
) -> dict[str, str] | None:
    """The best tidy rearrangement an oracle can make: every initially misplaced object to
    a correct receptacle, maximising the summed reciprocal-rank score (so the rearrangement
    quality) within capacities, objects already correct staying put. A weighted bipartite
    matching of objects to free slots (scipy's ``linear_sum_assignment``); None when no
    tidy rearrangement exists."""
    from scipy.optimize import linear_sum_assignment

    init = episode.initial_placement
    movers = [o for o, r in init.items() if not episode.judgement(store, o, r).is_correct]
    if not movers:
        return {}
    stay_load: dict[str, int] = {}
    for o, at in init.items():
        if o not in movers:
            stay_load[at] = stay_load.get(at, 0) + 1
    slots: list[str] = []
    for rec in episode.receptacles:
        free = len(movers) if rec.capacity is None else rec.capacity - stay_load.get(rec.id, 0)
        if any(episode.judgement(store, o, rec.id).is_correct for o in movers):
            slots.extend([rec.id] * min(max(free, 0), len(movers)))
    if len(slots) < len(movers):
        return None
    forbidden = 1e6
    cost = [
        [
            -_score(j, mrr) if (j := episode.judgement(store, o, r)).is_correct else forbidden
            for r in slots
        ]
        for o in movers
    ]
    rows, cols = linear_sum_assignment(cost)
    out = {movers[i]: slots[j] for i, j in zip(rows, cols, strict=True)}
    if any(cost[i][j] >= forbidden for i, j in zip(rows, cols, strict=True)):
        return None
    return out


def oracle_actions(
    episode: Episode, store: PreferenceStore, *, mrr: str = "correct"
) -> tuple[str, ...] | None:
    """A plan carrying out :func:`oracle_assignment` with one pick and one place per moved
    object (navigate, pick, navigate, place), ordered so that every target has room when
    its object arrives; None when no such order exists (a cycle of full receptacles would
    need a temporary placement, which an oracle with minimal interactions cannot make)."""
    plan = oracle_assignment(episode, store, mrr=mrr)
    if plan is None:
        return None
    load: dict[str, int] = {}
    for r in episode.initial_placement.values():
        load[r] = load.get(r, 0) + 1
    cap = {r.id: r.capacity for r in episode.receptacles}
    pending = sorted(plan)
    actions: list[str] = []
    here = episode.agent_at
    while pending:
        ready = [o for o in pending if (c := cap[plan[o]]) is None or load.get(plan[o], 0) < c]
        if not ready:
            return None
        o = ready[0]
        src, dst = episode.initial_placement[o], plan[o]
        if here != src:
            actions.append(f"navigate({src})")
        actions += [f"pick({o})", f"navigate({dst})", f"place({o}, {dst})"]
        here = dst
        load[src] -= 1
        load[dst] = load.get(dst, 0) + 1
        pending.remove(o)
    return tuple(actions)
