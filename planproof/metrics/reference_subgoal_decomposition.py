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
   syntax error anywhere is ``NotParseable``); then names outside its vocabulary, compared
   as written (``CLOSE``, ``SWITCHON``, ``ontop`` ... as subgoals: ``unknown-primitive``)
   are a hallucination, as are wrong argument counts and objects its scene graph does not
   have as written (:func:`objects_in_scene`: ``names-as-written``); only then does
   planproof's resolver read the names (a name without an id given one, :func:`with_ids`;
   its literal fails in the translator);
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
   path meets the task's goal at some state of its trajectory (``then`` in order:
   :func:`_goal_met`); the reported path is the one with fewest errors (longest
   on a tie, those that ran to the end first).

The simulator is planproof's, replayed by the reference executor's tests
(:func:`~planproof.metrics.reference_executor.replay_reference_executor`, each path's whole
action sequence from the initial state), and the task's goal is planproof's formula read
by planproof's trace semantics; what stays the simulator's is documented.
"""

from __future__ import annotations

import functools
import json
import random
import re
from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
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
_INNER_OR = re.compile(r"(?<![\w.\-])or(?!\w)|\)\s*or")
"""An ``or`` keyword left in a kept line (its parser's lexer reads one wherever no name
character touches it, and after a closing parenthesis even when a name follows)."""
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
    after: Any = field(default=None, compare=False, repr=False)
    """The generator's state after this answer's draws, kept only when a kept line still
    has an ``or`` its parser reads (``A(x.1)or B(y.2)``: no ``" or "`` to split at): the
    runtime checker then draws again from it (:func:`read_formula`)."""


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
    after = rng.getstate() if any(_INNER_OR.search(x) for x in kept) else None
    return SampledPlan(tuple(kept), dropped, sampled, after)


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
unit: "not" unit -> neg
    | NAME "(" [arg ("," arg)*] ")" -> prim
    | "(" seq ")" -> group
    | ("forall" | "exists") NAME "." "(" seq ")" -> quant
    | "forn" NUM "." NAME "." "(" seq ")" -> forn
arg: NAME | NAME_ID
NAME: /[a-zA-Z_\-]\w*/
NAME_ID: /[a-zA-Z_\-]\w*\.[0-9]+/
NUM: /\d+/
%import common.WS
%ignore WS
"""
"""The language of the reference's subgoal formulas (``simple_tl_parser``'s grammar, the
lines joined with ``then``; its rules named here for :class:`Formula`): an object is a name
or ``name.id``, nothing else (``character.65.hands`` is not); keywords in lower case."""


@functools.lru_cache(maxsize=1)
def _syntax() -> Any:
    from lark import Lark

    return Lark(_SYNTAX, parser="lalr")


def _tree(lines: Sequence[str]) -> Any:
    """The reference's parse of the kept lines (None: its parser fails)."""
    return _parse(" then ".join(lines))


@functools.lru_cache(maxsize=4096)
def _parse(formula: str) -> Any:
    """The reference's parse of ``formula``, remembered (callers only read the tree): the
    5,069 sampled plans of the 15 published files are 1,976 distinct formulas."""
    from lark.exceptions import LarkError

    try:
        return _syntax().parse(formula)
    except LarkError:
        return None


_GLUED_NOT = re.compile(r"(?<![\w\-])not([A-Za-z_]\w*)(?=\s*\()")


def unglued(lines: Sequence[str]) -> tuple[str, ...]:
    """The lines with a ``not`` glued to a name of the vocabulary written apart
    (``notONTOP(a.1, b.2)`` → ``not ONTOP(a.1, b.2)``): the reference's Earley parser, whose
    lexer tries every terminal at every place, reads the keyword there (its runtime checker
    then fails on the negation); an LALR lexer reads one name ``notONTOP``. Other glued
    keywords follow a closing parenthesis, where both read the keyword."""

    def apart(m: re.Match[str]) -> str:
        return f"not {m.group(1)}" if m.group(1) in ARITY else m.group(0)

    return tuple(_GLUED_NOT.sub(apart, x) for x in lines)


_BETWEEN = re.compile(r"\bBETWEEN\(\s*([^,()\s]+)\s*,\s*([^,()\s]+)\s*\)")
"""``BETWEEN(a, b)``, the reference's two-argument form: its translator skips the literal,
and planproof's domain has the predicate with three arguments, so the reading gives it a
third (``a`` again) that only makes planproof's reader read it."""


def in_reference_syntax(lines: Sequence[str]) -> bool:
    """Does the reference's parser read the kept lines? It parses the whole formula before
    it looks up any name, so a syntax error anywhere is ``NotParseable`` even where another
    line has a name outside its vocabulary (258_2, Claude-3 Haiku: ``RINSE(character.65.hands)``
    and ``CLOSE(faucet.232)``)."""
    return _tree(lines) is not None


@dataclass(frozen=True)
class Primitive:
    """One ``NAME(args)`` of the formula as the reference's parser reads it: ``args`` the
    argument texts with their offsets in the joined formula, ``bound`` the variables of
    the quantifiers around it."""

    name: str
    args: tuple[tuple[str, int], ...]
    bound: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Formula:
    """What the reference's pipeline reads off its parse, before any name is resolved:
    the primitives in its parser's order; the literals of its runtime sequence (``and`` and
    ``then`` in order; of an ``or``, the first disjunct, as :func:`_literals` reads
    planproof's formulas, or the one drawn when a generator is given), each with whether
    the translator fails on it (an argument without an id: ``split_obj_pair`` unpacks
    ``name.id``); and whether building that sequence fails
    (``sample_a_determined_path_from_tl_expr`` raises on a quantifier, and on ``not`` of
    anything but a primitive, whose De Morgan expansion it reads as a primitive)."""

    primitives: tuple[Primitive, ...]
    literal_fails: tuple[bool, ...]
    path_fails: bool
    path: tuple[tuple[int, bool], ...] = ()
    """The literals: (index in ``primitives``, negated)."""
    drawn: bool = False
    """Whether an ``or`` of the path was drawn from a generator."""


def read_formula(tree: Any, rng: random.Random | None = None) -> Formula:
    """:class:`Formula` of a parse by :func:`_tree`; ``rng``: the generator the runtime
    checker draws an ``or`` it still sees from (None: the first disjunct)."""
    prims: list[Primitive] = []
    index: dict[int, int] = {}
    fails: list[bool] = []
    chosen: list[tuple[int, bool]] = []
    path_fails = drawn = False

    def args_of(t: Any) -> tuple[tuple[str, int], ...]:
        return tuple(
            (str(a.children[0]), int(a.children[0].start_pos))
            for a in t.children[1:]
            if a is not None
        )

    def collect(t: Any, bound: frozenset[str]) -> None:
        if t.data == "prim":
            index[id(t)] = len(prims)
            prims.append(Primitive(str(t.children[0]), args_of(t), bound))
            return
        if t.data == "quant":
            bound = bound | {str(t.children[0])}
        elif t.data == "forn":
            bound = bound | {str(t.children[1])}
        for c in t.children:
            if hasattr(c, "data"):
                collect(c, bound)

    def unwrap(t: Any) -> Any:
        while t.data == "group" or (t.data in ("seq", "alt", "conj") and len(t.children) == 1):
            t = t.children[0]
        return t

    def path(t: Any) -> None:
        nonlocal path_fails, drawn
        t = unwrap(t)
        if t.data in ("seq", "conj"):
            for c in t.children:
                path(c)
        elif t.data == "alt":
            if rng is None:
                path(t.children[0])
            else:
                drawn = True
                path(rng.choice(t.children))
        elif t.data == "prim":
            chosen.append((index[id(t)], False))
            fails.append(any("." not in a for a, _ in args_of(t)))
        elif t.data == "neg":
            inner = unwrap(t.children[0])
            if inner.data == "prim":
                chosen.append((index[id(inner)], True))
            else:
                path_fails = True
            fails.append(True)  # the translator has no rule for a negation
        else:  # quant, forn
            path_fails = True
            fails.append(True)

    collect(tree, frozenset())
    path(tree)
    return Formula(tuple(prims), tuple(fails), path_fails, tuple(chosen), drawn)


def objects_in_scene(formula: Formula, scene: Mapping[int, str]) -> bool:
    """``SubgoalSemanticChecker.check_objects_in_scene``: every argument but a quantified
    variable is ``name.id`` of a node of the task's scene graph (``scene``: id → class name,
    compared as text) or, without an id, the class name of one."""
    names = set(scene.values())
    for p in formula.primitives:
        for arg, _ in p.args:
            if arg in p.bound:
                continue
            if "." in arg:
                name, ident = arg.split(".")
                if scene.get(int(ident)) != name:
                    return False
            elif arg not in names:
                return False
    return True


def with_ids(
    lines: Sequence[str], formula: Formula, scene: Mapping[int, str], world: Any
) -> tuple[str, ...]:
    """The kept lines with every argument written without an id given one (an object of
    that class in planproof's world if there is one, else the scene's first), so that
    planproof's reader, which needs ``name.id``, reads the same formula; the literals that
    had one fail in the reference's translator (:attr:`Formula.literal_fails`) whatever it
    names."""
    ids: dict[str, int] = {}
    for ident in sorted(scene, key=lambda i: (f"{scene[i]}.{i}" not in world.objects, i)):
        ids.setdefault(scene[ident], ident)
    starts, pos = [], 0
    for line in lines:
        starts.append(pos)
        pos += len(line) + len(" then ")
    edits: dict[int, list[tuple[int, str, str]]] = {}
    for p in formula.primitives:
        for arg, at in p.args:
            if "." not in arg and arg not in p.bound and arg in ids:
                k = max(i for i, s in enumerate(starts) if s <= at)
                edits.setdefault(k, []).append((at - starts[k], arg, f"{arg}.{ids[arg]}"))
    out = list(lines)
    for k, spots in edits.items():
        line = out[k]
        for at, old, new in sorted(spots, reverse=True):
            line = line[:at] + new + line[at + len(old) :]
        out[k] = line
    return tuple(out)


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
    as_written: bool = False
    """The verdict came from comparing an object's text with the scene graph (an id of
    another class, a name no node has, a name without an id reaching the translator)."""

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


class _NoId(_NotParseable):
    """The translator unpacking ``name.id`` from a name written without an id."""


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
    lines = unglued(plan.lines) if plan.lines else ()
    tree = _tree(lines) if lines else None
    if plan.lines is None or tree is None:
        return ReferenceSubgoalTask(ident, "NotParseable", plan=plan)
    drawer = None
    if plan.after is not None:
        drawer = random.Random()
        drawer.setstate(plan.after)
    formula = read_formula(tree, drawer)
    primitives = formula.primitives
    unknown = next((p.name for p in primitives if p.name not in ARITY), "")
    if unknown:  # its grammar's "Unknown primitive" (names compared as written)
        return ReferenceSubgoalTask(ident, "Hallucination", plan=plan, unknown=unknown)
    if any(not p.args for p in primitives):
        # SLEEP(), WAKEUP(): check_objects_in_scene iterates the action's args, None there
        return ReferenceSubgoalTask(ident, "NotParseable", plan=plan, no_arguments=True)
    if any(len(p.args) != ARITY[p.name] for p in primitives):
        # check_param_length runs before check_objects_in_scene and wins
        return ReferenceSubgoalTask(ident, "Hallucination", argument_count=True, plan=plan)
    if task.dataset == "virtualhome":  # the reference's whole scene graph, not our world
        from planproof.simulators.virtualhome.tasks import with_scene_objects

        objects = task.world.objects
        if any(a not in objects and a not in p.bound for p in primitives for a, _ in p.args):
            from planproof.simulators.virtualhome.convert import scene_names

            scene = scene_names(ident)
            if not objects_in_scene(formula, scene):
                return ReferenceSubgoalTask(ident, "Hallucination", plan=plan, as_written=True)
            lines = with_ids(lines, formula, scene, task.world)
        task = with_scene_objects(task, lines)
    if any("BETWEEN" in x for x in lines):
        lines = tuple(_BETWEEN.sub(r"BETWEEN(\1, \2, \1)", x) for x in lines)
    parsed = read_subgoal_formulas(list(lines), task.world)
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
    fails = formula.literal_fails
    if formula.path_fails:
        # its runtime checker cannot build the literal sequence (a quantifier, ``not`` of a
        # compound formula): the catch-all, before any action runs
        return ReferenceSubgoalTask(ident, "NotParseable", plan=plan, split=split)
    if formula.drawn or len(fails) != len(literals):
        # another disjunct drawn, or planproof's reader grouped the literals otherwise:
        # each literal of the reference's path read on its own
        literals = _drawn_literals(formula, task.world)
    try:
        return _run(task, plan, literals, split, fails)
    except _NotParseable as exc:
        written = isinstance(exc, _NoId)
        return ReferenceSubgoalTask(
            ident, "NotParseable", plan=plan, split=split, as_written=written
        )


def _drawn_literals(formula: Formula, world: Any) -> list[Any]:
    """The literals of the reference's path, each read by planproof's reader on its own
    (None for one written without an id, ``"not"`` for a negation: the translator fails on
    both, so neither is ever translated)."""
    from planproof.interface.subgoals import read_subgoal_formulas

    out: list[Any] = []
    for (k, neg), bad in zip(formula.path, formula.literal_fails, strict=True):
        if neg or bad:
            out.append("not" if neg else None)
            continue
        p = formula.primitives[k]
        text = _BETWEEN.sub(r"BETWEEN(\1, \2, \1)", f"{p.name}({', '.join(a for a, _ in p.args)})")
        one = read_subgoal_formulas([text], world)
        out.extend([None] if one.error is not None else _literals(one.subgoals[0]))
    return out


def goal_raises(task: Any) -> bool:
    """Does the reference's goal check raise on every path that runs to the end? The goal
    of six tasks (1027_2, 181_1, 244_2, 269_2, 509_2, 875_1: ``SLEEP() then (...)``) starts
    with an action without arguments; ``eval_simple_tl`` grounds it on the trajectory's
    first state and iterates its ``None`` arguments, and the catch-all reports
    ``NotParseable`` (fuzzer seed 14, 269_2). A path that fails before the end is never
    checked."""
    from planproof.ltl.ast import Atom, walk

    return any(isinstance(a, Atom) and not a.args for g in task.parts.actions for a in walk(g))


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
    task: Any,
    plan: SampledPlan,
    literals: Sequence[Any],
    split: bool,
    fails: Sequence[bool] = (),
) -> ReferenceSubgoalTask:
    from planproof.ltl.ast import Atom
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
            if goal_raises(task):  # its goal check grounds SLEEP()'s arguments: None
                raise _NotParseable("the goal's action has no arguments")
            completed = True
            translated = translated or rule
            if _goal_met(task, scorable, done):
                feasible.append((done, errors))
            else:
                failed.append((done, (*errors, "goal_failed")))
            continue
        literal = literals[i]
        if i < len(fails) and fails[i]:  # the translator's split_obj_pair raises
            if literal is None or isinstance(literal, Atom):
                raise _NoId(f"no id in {literal}")
            raise _NotParseable(f"no translation of {literal}")
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


def _goal_met(task: Any, scorable: Any, done: Sequence[Any]) -> bool:
    """Does a path that ran every literal meet the task's goal as the reference checks it?
    ``check_tl_final_goal`` evaluates the ``tl_goal`` with ``eval_simple_tl`` over the
    path's whole trajectory (the initial state and the state after each executed action,
    each paired with the action taken there): a ``then``-free goal holds once it holds at
    some position, ``then`` in order (``docs/subgoal-decomposition.md``, "Answers nobody
    published"), which is planproof's trace semantics (``planproof.ltl.evaluate``) on the
    path's replayed trace, not the end state alone, with the reference's actions
    (:data:`_GOAL_ACTIONS`). Other datasets keep planproof's check."""
    from planproof.metrics.action_sequencing import evaluate_actions

    if task.dataset != "virtualhome":
        return evaluate_actions(scorable, done).success
    from planproof.ltl.evaluate import evaluate
    from planproof.simulators.core import replay

    run = replay(task.world, task.initial, done)
    if not run.executable:
        return False
    return evaluate(task.goal, run.trace, task.world.universe, _GOAL_ACTIONS)


_GOAL_ACTIONS = frozenset(n.lower() for n in SUBGOAL_ACTIONS)
"""The goal's names that match the action taken at a position (the reference's parser makes
a primitive an action by its vocabulary's ``subgoal_actions``): ``OPEN`` is a state there,
though planproof's domain also has the action."""


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
