"""Subgoal decomposition by the reference's rules (virtualhome-eval 0.1.1,
``evaluation/subgoal_decomposition``: ``subgoal_plan.py``, ``checkers.py``,
``state_action_translator.py``, read and re-implemented, not imported), on planproof's
VirtualHome simulator: the "reference reading" of ``planproof reproduce eai``.

The reference's pipeline, per answer (``docs/subgoal-decomposition.md``, "The reference
reading"; each step a class of ``docs/reference-differences.md``):

1. **extraction** — ``}}`` made ``}``, the first ``{...}`` without inner braces,
   ``json.loads``, its ``output`` list; anything else is ``NotParseable``;
2. **lines** — a line without ``NAME(...)`` (other than ``SLEEP``, ``WAKEUP``, ``STANDUP``)
   is dropped without a word (``unparsable-subgoal-dropped``); a line ``A or B`` keeps one
   disjunct drawn by ``random.choice`` (``disjunct-sampled``) from the module-level
   ``random`` that its ``utils`` seeds 123 on import: the draw depends on every line the
   same process read before (:func:`file_draws`);
3. **grammar** — the whole formula in its grammar first (:func:`in_reference_syntax`: a
   syntax error anywhere is ``NotParseable``); then names outside its vocabulary
   (``CLOSE``, ``SWITCHON``, ``PUTBACK`` ... as subgoals: ``unknown-primitive``) are a
   hallucination, as are unknown objects and wrong
   argument counts (planproof's resolver reads the names);
4. **runtime** — every ``and`` and ``then`` flattened into one sequence of literals
   (``conjunction-as-sequence``); each literal translated to fixed action templates
   (``translator-rule``: ``HOLDS_LH`` → ``FIND``, ``GRAB``; ``SITTING``, ``LYING``,
   ``DIRTY``, ``BETWEEN``, properties and ``NEXT_TO`` written from the object → nothing, the
   literal is skipped; ``INSIDE(character, x)`` → ``WALK``; ``not``: its translator fails,
   the catch-all calls the plan ``NotParseable``, as it does for an action without
   arguments such as ``WAKEUP()``, whose ``None`` arguments its object check iterates, and
   for a task whose own goal it cannot read), tried breadth-first over the templates'
   alternatives; a literal is accepted once its actions execute, an additional step being
   accepted too (``additional-step-accepted``), never checking that the literal holds;
5. **verdict** — executable once some path runs every literal; successful once some such
   path meets the task's goals; the reported path is the one with fewest errors (longest
   on a tie, those that ran to the end first).

The simulator is planproof's, replayed by the reference executor's tests
(:func:`~planproof.metrics.reference_executor.replay_reference_executor`, each path's whole
action sequence from the initial state), and the task's goals are planproof's; what stays
the simulator's is documented.
"""

from __future__ import annotations

import functools
import json
import random
import re
from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

REFERENCE_SEED = 123
"""``random.seed(123)`` in ``virtualhome_eval.simulation.evolving_graph.utils``, run once
per process when the evaluator is imported."""
SD_BATCH = 13
"""Tasks per reference process in the stored whole-file runs (one worker, one process per
batch of 13 consecutive tasks: ``whole_files.json``'s provenance), so the generator starts
again from the seed every 13 answers of a file."""
MAX_PATHS = 4096
"""Partial paths the breadth-first search over the templates' alternatives may visit (the
reference's is unbounded; two alternatives per literal at most, so 12 such literals)."""

_ACTION_NAMES = (
    "DRINK EAT CUT TOUCH LOOKAT WATCH READ TYPE PUSH PULL MOVE SQUEEZE SLEEP WAKEUP RINSE "
    "SCRUB WASH WIPE GRAB SWITCHOFF"
)
SUBGOAL_ACTIONS = frozenset(_ACTION_NAMES.split())
"""``subgoal_actions`` of the vocabulary the evaluator loads (``resources/vocabulary.json``,
which has ``WIPE``; ``resources/virtualhome/vocabulary.json`` has not): any other action is
an unknown primitive there."""
_PREDICATE_NAMES = (
    "GRABBABLE CUTTABLE CAN_OPEN READABLE HAS_PAPER MOVABLE POURABLE CREAM HAS_SWITCH "
    "LOOKABLE HAS_PLUG DRINKABLE BODY_PART RECIPIENT CONTAINERS COVER_OBJECT SURFACES "
    "SITTABLE LIEABLE PERSON HANGABLE CLOTHES EATABLE CLOSED OPEN ON OFF SITTING DIRTY CLEAN "
    "LYING PLUGGED_IN PLUGGED_OUT ONTOP INSIDE BETWEEN NEXT_TO FACING HOLDS_RH HOLDS_LH"
)
TL_PREDICATES = frozenset(_PREDICATE_NAMES.split())
"""The reference vocabulary's ``tl_predicates``."""
ARITY: Mapping[str, int] = {
    **dict.fromkeys(TL_PREDICATES, 1),
    **dict.fromkeys(("ONTOP", "INSIDE", "BETWEEN", "NEXT_TO", "FACING", "HOLDS_RH", "HOLDS_LH"), 2),
    **dict.fromkeys(SUBGOAL_ACTIONS, 1),
    "SLEEP": 0,
    "WAKEUP": 0,
}
"""The reference vocabulary's argument counts (``state_param_dict``, ``actio_param_dict``)."""
PRIMITIVE = re.compile(r"([A-Za-z_]\w*)\s*\(([^()]*)\)")
SUBGOAL_LINE = re.compile(r"\w+\(.*?\)")
"""What a line needs for the reference to keep it (``sample_state_from_compound_state``)."""
CHARACTER_ID = "65"


@dataclass(frozen=True)
class SampledPlan:
    """An answer's subgoal lines as the reference keeps them: ``lines`` None when it cannot
    extract them (or meets a line that is not a string); ``dropped`` lines without
    ``NAME(...)``; ``sampled`` lines with ``or`` of which one disjunct was drawn."""

    lines: tuple[str, ...] | None
    dropped: int = 0
    sampled: int = 0


def output_list(text: str) -> list[Any] | None:
    """The answer's ``output`` list as ``SubgoalPlanHalfJson.extract_json_obj`` finds it
    (``}}`` made ``}``, the first ``{...}`` without inner braces, ``json.loads``)."""
    m = re.search(r"{[^{}]*}", text.strip().replace("}}", "}"), re.DOTALL)
    try:
        obj = json.loads(m.group(0)) if m else None
    except ValueError:
        return None
    out = obj.get("output") if isinstance(obj, dict) else None
    return out if isinstance(out, list) else None


def sample_plan(text: str | None, rng: random.Random) -> SampledPlan:
    """``preprocess_raw_plan_obj`` on one answer, drawing from ``rng`` as the reference
    draws (one ``choice`` per kept line, also of a one-element list)."""
    raw = output_list(text) if isinstance(text, str) else None
    if raw is None:
        return SampledPlan(None)
    kept: list[str] = []
    dropped = sampled = 0
    for item in raw:
        if not isinstance(item, str):  # state.strip() raises there: NotParseable
            return SampledPlan(None, dropped, sampled)
        line = item.strip()
        if not line:
            continue
        if line in ("SLEEP", "WAKEUP", "STANDUP"):
            kept.append(f"{line}()")
            continue
        if not SUBGOAL_LINE.search(line):
            dropped += 1
            continue
        parts = line.split(" or ")
        sampled += len(parts) > 1
        kept.append(rng.choice(parts))
    return SampledPlan(tuple(kept), dropped, sampled)


def file_draws(
    rows: Iterable[Any], batch: int | None = SD_BATCH, rng: random.Random | None = None
) -> dict[str, SampledPlan]:
    """Every answer of a published file (its rows, in the file's order) as the reference
    samples it in one worker process re-seeded every ``batch`` answers (None: one process
    for the whole file), keyed by identifier without ``scene_1_``. ``rng``: the process's
    generator as earlier files left it (one interpreter evaluates several files one after
    the other: the draws go on from the last file's; a ``batch`` restarts it at once)."""
    out: dict[str, SampledPlan] = {}
    rng = random.Random(REFERENCE_SEED) if rng is None else rng
    for i, row in enumerate(rows):
        if batch and i % batch == 0:
            rng = random.Random(REFERENCE_SEED)
        if not isinstance(row, Mapping):
            continue
        ident = str(row.get("identifier", "")).removeprefix("scene_1_")
        text = row.get("llm_output")
        out[ident] = sample_plan(text if isinstance(text, str) else None, rng)
    return out


_SYNTAX = r"""
?start: seq
seq: alt ("then" alt)*
alt: conj ("or" conj)*
conj: unit ("and" unit)*
unit: "not" unit
    | NAME "(" [arg ("," arg)*] ")"
    | "(" seq ")"
    | ("forall" | "exists") NAME "." "(" seq ")"
    | "forn" NUM "." NAME "." "(" seq ")"
arg: NAME | NAME_ID
NAME: /[a-zA-Z_\-]\w*/
NAME_ID: /[a-zA-Z_\-]\w*\.[0-9]+/
NUM: /\d+/
%import common.WS
%ignore WS
"""
"""The language of the reference's subgoal formulas (``simple_tl_parser``'s grammar, the
lines joined with ``then``): an object is a name or ``name.id``, nothing else
(``character.65.hands`` is not); keywords in lower case."""


@functools.lru_cache(maxsize=1)
def _syntax() -> Any:
    from lark import Lark

    return Lark(_SYNTAX, parser="lalr")


def in_reference_syntax(lines: Sequence[str]) -> bool:
    """Does the reference's parser read the kept lines? It parses the whole formula before
    it looks up any name, so a syntax error anywhere is ``NotParseable`` even where another
    line has a name outside its vocabulary (258_2, Claude-3 Haiku: ``RINSE(character.65.hands)``
    and ``CLOSE(faucet.232)``)."""
    return _reads(" then ".join(lines))


@functools.lru_cache(maxsize=4096)
def _reads(formula: str) -> bool:
    """Whether the reference's parser reads ``formula``, remembered: 5,069 sampled plans of
    the 15 published files are 1,976 distinct formulas (models write the same subgoals)."""
    from lark.exceptions import LarkError

    try:
        _syntax().parse(formula)
    except LarkError:
        return False
    return True


@dataclass(frozen=True)
class ReferenceSubgoalTask:
    """One answer as the reference scores it. ``category`` is the first item of its report
    (``Correct``, ``GoalUnreachable``, ``Runtime``, ``Hallucination``, ``NotParseable``);
    ``errors`` the error types of the reported path; the rest says which of its rules
    applied (for the corrections)."""

    identifier: str
    category: str
    executable: bool = False
    success: bool = False
    errors: tuple[str, ...] = ()
    argument_count: bool = False
    plan: SampledPlan = SampledPlan(None)
    unknown: str = ""
    split: bool = False
    translated: bool = False
    goal_unreadable: bool = False
    no_arguments: bool = False
    actions: tuple[str, ...] = ()

    @property
    def error(self) -> str | None:
        """The error type of the verdict, in planproof's words."""
        if self.category == "NotParseable":
            return "parsing"
        if self.category == "Hallucination":
            return "argument_count" if self.argument_count else "hallucination"
        if self.category == "Runtime":
            return next((e for e in self.errors if e != "additional_step"), None)
        return None

    def to_dict(self) -> dict[str, Any]:
        return {
            "identifier": self.identifier,
            "category": self.category,
            "executable": self.executable,
            "success": self.success,
            "error": self.error,
            "errors": list(self.errors),
            "dropped_lines": self.plan.dropped,
            "sampled_lines": self.plan.sampled,
            "actions": list(self.actions),
        }


class _NotParseable(Exception):
    """The reference's catch-all: an exception anywhere is a ``NotParseable`` report."""


def _is_character(name: str) -> bool:
    return name.rsplit(".", 1)[-1] == CHARACTER_ID


def _holds(state: Any, obj: str) -> bool:
    from planproof.ltl.ast import Atom, Const

    c = Const(f"character.{CHARACTER_ID}")
    return any(Atom(p, (c, Const(obj))) in state for p in ("holds_rh", "holds_lh"))


def translate(literal: Any, state: Any) -> list[list[Any]]:
    """``StateActionTranslator.map_primitive_to_action_set`` on planproof's names: the
    alternative action sequences of one literal in ``state`` ([] : no rule, skipped)."""
    from planproof.ltl.ast import Atom
    from planproof.simulators.core import Action

    if not isinstance(literal, Atom):  # SimpleTLNot has no prop_or_action
        raise _NotParseable(f"no translation of {literal}")
    name = literal.pred.upper()
    args = tuple(a.name for a in literal.args)

    def act(n: str, *xs: str) -> Any:
        return Action(n, tuple(xs))

    if name in SUBGOAL_ACTIONS:
        if not args:
            return [[act(name)]]
        x = args[0]
        if name in ("DRINK", "EAT", "READ") and not _holds(state, x):
            return [[act("FIND", x), act("GRAB", x), act(name, *args)]]
        if name in ("LOOKAT", "WATCH"):
            return [[act("FIND", x), act("TURNTO", x), act(name, *args)]]
        return [[*(act("FIND", a) for a in args), act(name, *args)]]
    one = {
        "CLOSED": "CLOSE",
        "OPEN": "OPEN",
        "ON": "SWITCHON",
        "OFF": "SWITCHOFF",
        "PLUGGED_IN": "PLUGIN",
        "PLUGGED_OUT": "PLUGOUT",
    }
    if len(args) == 1:
        x = args[0]
        if name in one:
            return [[act("FIND", x), act(one[name], x)]]
        if name == "CLEAN":
            return [[act("FIND", x), act("WIPE", x)], [act("FIND", x), act("WASH", x)]]
        return []
    if len(args) != 2:
        return []
    a, b = args
    if name == "ONTOP":
        if _is_character(a):
            return [[act("FIND", b), act("SIT", b)], [act("FIND", b), act("LIE", b)]]
        if _is_character(b):
            return [[act("PUTON", a)]]
    if name in ("ONTOP", "INSIDE") and not (name == "INSIDE" and _is_character(a)):
        grab = [] if _holds(state, a) else [act("FIND", a), act("GRAB", a)]
        head = [*grab, act("FIND", b)]
        if name == "ONTOP":
            return [[*head, act("PUTBACK", a, b)]]
        return [[*head, act("PUTIN", a, b)], [*head, act("POUR", a, b)]]
    if name == "INSIDE":
        return [[act("WALK", b)]]
    if name == "NEXT_TO":
        return [[act("FIND", b)]] if _is_character(a) else []
    if name == "FACING":
        return [[act("FIND", b), act("TURNTO", b)]]
    if name in ("HOLDS_RH", "HOLDS_LH"):
        return [[act("FIND", b), act("GRAB", b)]]
    return []


def _literals(f: Any) -> list[Any]:
    """``sample_a_determined_path_from_tl_expr``: ``and`` and ``then`` in order (planproof's
    reader has already split ``then``); an ``or`` left inside a line keeps its first
    disjunct (the reference draws again; no published answer has one)."""
    from planproof.ltl.ast import And, Or

    if isinstance(f, And):
        return [x for c in f.children for x in _literals(c)]
    if isinstance(f, Or):
        return _literals(f.children[0])
    return [f]


def _unknown(literals: Sequence[Any]) -> str:
    """The first literal's name outside the reference's vocabulary ('' if none)."""
    from planproof.ltl.ast import Atom, walk

    for f in literals:
        for a in walk(f):
            if isinstance(a, Atom):
                n = a.pred.upper()
                if n not in SUBGOAL_ACTIONS and n not in TL_PREDICATES:
                    return n
    return ""


def score_answer(task: Any, plan: SampledPlan) -> ReferenceSubgoalTask:
    """Score one answer, sampled as :func:`sample_plan` did, by the reference's pipeline on
    planproof's simulator."""
    from planproof.interface.subgoals import read_subgoal_formulas
    from planproof.simulators.core import ErrorKind

    ident = task.identifier
    if plan.lines is None or not plan.lines or not in_reference_syntax(plan.lines):
        return ReferenceSubgoalTask(ident, "NotParseable", plan=plan)
    primitives = [m.groups() for line in plan.lines for m in PRIMITIVE.finditer(line)]
    unknown = next((n.upper() for n, _ in primitives if n.upper() not in ARITY), "")
    if unknown:  # its grammar's "Unknown primitive", before any other check
        return ReferenceSubgoalTask(ident, "Hallucination", plan=plan, unknown=unknown)
    if any(not args.strip() for _, args in primitives):
        # SLEEP(), WAKEUP(): check_objects_in_scene iterates the action's args, None there
        return ReferenceSubgoalTask(ident, "NotParseable", plan=plan, no_arguments=True)
    wrong = any(
        len([a for a in args.split(",") if a.strip()]) != ARITY[n.upper()] for n, args in primitives
    )
    if wrong:  # check_param_length runs before check_objects_in_scene and wins
        return ReferenceSubgoalTask(ident, "Hallucination", argument_count=True, plan=plan)
    if task.dataset == "virtualhome":  # the reference's whole scene graph, not our world
        from planproof.simulators.virtualhome.tasks import with_scene_objects

        task = with_scene_objects(task, plan.lines)
    parsed = read_subgoal_formulas(list(plan.lines), task.world)
    if parsed.error is not None:
        if parsed.error.kind is ErrorKind.PARSING:
            return ReferenceSubgoalTask(ident, "NotParseable", plan=plan)
        return ReferenceSubgoalTask(
            ident,
            "Hallucination",
            argument_count=parsed.error.kind is ErrorKind.ARGUMENT_COUNT,
            plan=plan,
        )
    unknown = _unknown(parsed.subgoals)
    if unknown:
        return ReferenceSubgoalTask(ident, "Hallucination", plan=plan, unknown=unknown)
    if goal_unreadable(task):
        return ReferenceSubgoalTask(ident, "NotParseable", plan=plan, goal_unreadable=True)
    literals = [x for f in parsed.subgoals for x in _literals(f)]
    split = len(literals) > len(parsed.subgoals)
    try:
        return _run(task, plan, literals, split)
    except _NotParseable:
        return ReferenceSubgoalTask(ident, "NotParseable", plan=plan, split=split)


def goal_unreadable(task: Any) -> bool:
    """Can the reference not read the task's own goal formula? It parses it with its subgoal
    vocabulary (an action goal such as ``POUR`` or ``WIPE`` is an unknown primitive there)
    and asserts there is one (four tasks have none); the exception makes every answer that
    gets this far ``NotParseable``."""
    from planproof.ltl.ast import Atom, walk

    parts = task.parts
    if not (parts.states or parts.relations or parts.actions):
        return True
    names = {a.pred.upper() for g in parts.actions for a in walk(g) if isinstance(a, Atom)}
    return bool(names - SUBGOAL_ACTIONS)


_Path = tuple[Any, tuple[Any, ...], int, tuple[str, ...], bool]
"""A partial path: its state, the actions it executed, the next literal, its errors so far,
whether a translator rule accepted one of its literals."""


@dataclass(frozen=True)
class _At:
    """A task seen from a path's state: the executor replays from ``initial``."""

    world: Any
    initial: Any


def _replay(
    task: Any, state: Any, done: Sequence[Any], actions: Sequence[Any]
) -> tuple[Any, list[int], int, str | None]:
    """The reference executor on a literal's ``actions`` after a path that executed ``done``
    and reached ``state``: (final state, indices of ``actions`` executed, additional steps,
    error). The executor remembers the whole run (grabbed objects; every earlier state, for
    its temporal-order checker on a failure), so the exact answer is the whole path replayed
    from the task's initial state; replayed from ``state`` alone it is the same whenever no
    action fails and none grabs or puts back an object the path grabbed, which is most
    literals, and that is tried first (the whole replay costs the path's length again)."""
    grabbed = {a.args[0] for a in done if a.name == "GRAB" and a.args}
    remembered = any(
        a.name in ("GRAB", "PUTOBJBACK") and a.args and a.args[0] in grabbed for a in actions
    )
    if not remembered:
        final, ran, additional, error = _executed(task.world, state, tuple(actions))
        if error is None:
            return final, list(ran), additional, None
    final, ran, additional, error = _executed(task.world, task.initial, (*done, *actions))
    return final, [k - len(done) for k in ran if k >= len(done)], additional, error


_Executed = tuple[Any, tuple[int, ...], int, str | None]
_EXECUTED: dict[int, dict[tuple[Any, tuple[Any, ...]], _Executed]] = {}
"""Per live world: (start state, actions) → the reference executor's replay of them from
that state with no history (:func:`_executed`)."""
_EXECUTED_LIMIT = 20_000


def _executed(world: Any, start: Any, actions: tuple[Any, ...]) -> _Executed:
    """The reference executor's replay of ``actions`` from ``start`` with no earlier run (no
    history, no grabbed objects remembered): a pure function of the world, the state and
    the actions, remembered per world. Every model's answer to a task opens with the same
    few literals from the same states (``NEXT_TO(character.65, kitchen.1)``), and the
    reference's search over a plan's disjuncts replays each literal once per path."""
    from planproof.metrics.memo import per_object
    from planproof.metrics.reference_executor import replay_reference_executor

    memo = per_object(_EXECUTED, world)
    key = (start, actions)
    hit = memo.get(key)
    if hit is None:
        final, ran, additional, error = replay_reference_executor(_At(world, start), actions)
        if len(memo) >= _EXECUTED_LIMIT:
            memo.clear()
        hit = memo[key] = (final, tuple(ran), additional, error)
    return hit


def _run(
    task: Any, plan: SampledPlan, literals: Sequence[Any], split: bool
) -> ReferenceSubgoalTask:
    from planproof.metrics.action_sequencing import evaluate_actions
    from planproof.metrics.subgoal_decomposition import _scorable

    scorable = _scorable(task)
    queue: deque[_Path] = deque([(task.initial, (), 0, (), False)])
    feasible: list[tuple[tuple[Any, ...], tuple[str, ...]]] = []
    failed: list[tuple[tuple[Any, ...], tuple[str, ...]]] = []
    completed = False
    translated = False
    visited = 0
    while queue and visited < MAX_PATHS:
        visited += 1
        state, done, i, errors, rule = queue.popleft()
        if i == len(literals):
            completed = True
            translated = translated or rule
            if evaluate_actions(scorable, done).success:
                feasible.append((done, errors))
            else:
                failed.append((done, (*errors, "goal_failed")))
            continue
        literal = literals[i]
        options = translate(literal, state)
        special = _translator_rule(literal, options)
        if not options:
            queue.append((state, done, i + 1, errors, rule or special))
        for actions in options:
            final, ran, additional, error = _replay(task, state, done, actions)
            executed = (*done, *(actions[k] for k in ran))
            errs = (*errors, *["additional_step"] * additional)
            if error is not None:
                failed.append((executed, (*errs, error)))
                continue
            queue.append((final, executed, i + 1, errs, rule or special))
    if feasible:
        seq, errs = min(feasible, key=lambda p: len(p[1]))
        category = "Correct"
    else:
        pool = [p for p in failed if "goal_failed" in p[1]] or failed
        best: tuple[tuple[Any, ...], tuple[str, ...]] = ((), ())
        fewest = None
        for p in pool:
            if (
                fewest is None
                or len(p[1]) < fewest
                or (len(p[1]) == fewest and len(p[0]) > len(best[0]))
            ):
                best, fewest = p, len(p[1])
        seq, errs = best
        category = "GoalUnreachable" if completed else "Runtime"
    return ReferenceSubgoalTask(
        task.identifier,
        category,
        executable=completed,
        success=bool(feasible),
        errors=tuple(e for e in errs if e != "goal_failed"),
        plan=plan,
        split=split,
        translated=translated,
        actions=tuple(str(a) for a in seq),
    )


def _translator_rule(literal: Any, options: Sequence[Sequence[Any]]) -> bool:
    """Does the translator accept ``literal`` by an action that need not make it true (a
    skipped literal, a grab for the left hand, a walk into an object)?"""
    pred = getattr(literal, "pred", "")
    if not options:
        return True
    if pred == "holds_lh":
        return True
    return pred == "inside" and _is_character(literal.args[0].name)


def unread(identifier: str) -> ReferenceSubgoalTask:
    """An answer without text: ``extract_json_obj`` fails on it, ``NotParseable``."""
    return ReferenceSubgoalTask(identifier, "NotParseable")


RUNTIME = ("wrong_order", "missing_step", "affordance")


def summarize_reference(results: Sequence[ReferenceSubgoalTask]) -> dict[str, Any]:
    """The reference's summary (``traj_eval_stats``, ``goal_eval_stats``: every task of the
    file in the denominator; runtime errors counted on ``Runtime`` and ``Correct`` reports
    only, an additional step once per task)."""
    n = len(results)

    def pct(x: int) -> float | None:
        return round(100.0 * x / n, 4) if n else None

    counted = [r for r in results if r.category in ("Runtime", "Correct")]
    return {
        "tasks": n,
        "reading": "reference",
        "goal_evaluation": {"task_success_rate": pct(sum(r.success for r in results))},
        "trajectory_evaluation": {
            "execution_success_rate": pct(sum(r.executable for r in results)),
            "grammar_error": {
                "parsing": pct(sum(r.category == "NotParseable" for r in results)),
                "hallucination": pct(
                    sum(r.category == "Hallucination" and not r.argument_count for r in results)
                ),
                "predicate_argument_number": pct(sum(r.argument_count for r in results)),
            },
            "runtime_error": {
                "wrong_order": pct(sum(r.errors.count("wrong_order") for r in counted)),
                "missing_step": pct(sum(r.errors.count("missing_step") for r in counted)),
                "affordance_error": pct(sum(r.errors.count("affordance") for r in counted)),
                "additional_step": pct(sum("additional_step" in r.errors for r in counted)),
            },
        },
        "counts": {
            "tasks": n,
            "success": sum(r.success for r in results),
            "executable": sum(r.executable for r in results),
        },
    }
