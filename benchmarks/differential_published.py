"""planproof against the published reference evaluator (virtualhome-eval 0.1.1) on the
published LLM answers behind the EAI paper.

Run ``python benchmarks/differential_published.py [--module goal-interpretation ...]
[--model gpt-4o-2024-05-13 ...] [--write-figures]``. For each module and model, the
reference's unmodified ``evaluate_results`` (in its own venv, ``reference_published_
driver.py``; every verdict is kept in the user cache, keyed by the file's content, as it
takes minutes per file) and planproof score the same published file; then every per-task
disagreement is put in a class by that module's classifier (:data:`CLASSIFIERS`: one
function per module, so action sequencing and subgoal decomposition can be added). Each
class is explained, with a minimal example and a test, in ``docs/reference-differences.md``.

Outputs: ``benchmarks/results/differential_published.md`` / ``.json`` (figures side by side
and the disagreements by class), and with ``--write-figures`` the reference's figures per
module x model into ``planproof/data/reference/published_reference.json`` (package data
read by ``planproof reproduce eai``, so the reference column needs no venv).

Cost decides how much of each file the reference sees (``--every``; defaults in
:data:`EVERY`): goal interpretation and action sequencing whole files; subgoal
decomposition every 6th task (its evaluator needs ~3 s of CPU per task, ~15 min per file);
transition modeling whole files with the reference's planner disabled (its logic-form
figures do not depend on it; ``--tm-planner`` runs Fast Downward, ~15 min per file). A
sampled cell is stored with its sample (``"sample": {"every", "tasks", "of"}``) and shown
as such, never as the whole file's figure.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))  # run as a script, or imported

from differential_published_as import classify as classify_as_task
from reference_env import PUBLISHED_MODULES, published_run_path, reference_published_cached

from planproof.data.published import MODELS, VHE_WHEEL, PublishedFile, published_files
from planproof.data.reference_figures import FIGURES_PATH, PLANNER_FIGURE
from planproof.metrics.goal_corrections import (
    bare_action_names,
    collapsed_items,
    goal_interpretation_class,
    reference_cleanup,
)
from planproof.metrics.goal_corrections import outside_relevant as _outside
from planproof.metrics.goal_corrections import reference_pairs as reference_json
from planproof.metrics.goal_corrections import several_objects as _several_objects

RESULTS = Path(__file__).resolve().parent / "results"
GI_TYPES = (("node", "state"), ("edge", "relation"), ("action", "action"))
"""The reference's goal types → planproof's (Table 9: state, relation, action)."""


@dataclass(frozen=True)
class Disagreement:
    """One task on which the two evaluators differ, and why."""

    module: str
    model: str
    identifier: str
    cls: str
    reference: Any
    planproof: Any


Classifier = Callable[[PublishedFile, dict[str, Any]], tuple[dict[str, Any], list[Disagreement]]]
"""(file, the reference's verdict) → (planproof's summary, the per-task disagreements)."""


# --------------------------------------------------------------------- goal interpretation
def _outside_relevant(text: str, task: Any) -> bool:
    """:func:`planproof.metrics.goal_corrections.outside_relevant` over the reference's
    name map of the task."""
    from planproof.simulators.virtualhome.reference_names import reference_names

    return _outside(text, task, reference_names().get(task.identifier, {}))


def classify_goal_interpretation(
    file: PublishedFile, ref: dict[str, Any]
) -> tuple[dict[str, Any], list[Disagreement]]:
    from planproof.metrics.goal_interpretation import evaluate_goal_response, summarize
    from planproof.runs.modules import load_tasks

    tasks = {t.identifier: t for t in load_tasks("virtualhome")}
    rows = json.loads(file.path.read_text(encoding="utf-8"))
    results = []
    out: list[Disagreement] = []
    for row in rows:
        ident = str(row["identifier"])
        task = tasks[ident]
        res = evaluate_goal_response(task, str(row["llm_output"]), logic=False)
        results.append(res)
        rt = ref["tasks"].get(ident, {})
        if "node" not in rt:  # the reference read no JSON here and counted nothing
            if res.parse_error is None or res.total.fn:
                out.append(
                    Disagreement(
                        "goal-interpretation",
                        file.model,
                        ident,
                        "reference-skips-unparsable-response",
                        rt,
                        res.total.to_dict(),
                    )
                )
            continue
        several = _several_objects(str(row["llm_output"]), task)
        outside = _outside_relevant(str(row["llm_output"]), task)
        answer = reference_json(str(row["llm_output"]))
        collapsed = {rk: collapsed_items(answer, f"{rk} goals") for rk, _ in GI_TYPES}
        for rk, pk in GI_TYPES:
            rc = rt.get(rk, {})
            pc = res.counts.get(pk)
            pd = pc.to_dict() if pc is not None else {"tp": 0, "fp": 0, "fn": 0}
            if tuple(rc.get(k, 0) for k in ("TP", "FP", "FN")) != (pd["tp"], pd["fp"], pd["fn"]):
                field = {"state": "state:", "relation": "relation:", "action": "action:"}[pk]
                malformed = sum(
                    1 for i in res.issues if i.kind == "format" and field in str(i.item)
                )
                cls = goal_interpretation_class(
                    rk,
                    rc,
                    pd,
                    several,
                    outside=outside,
                    malformed=malformed,
                    collapsed=collapsed[rk],
                    bare_actions=bare_action_names(answer),
                )
                out.append(
                    Disagreement("goal-interpretation", file.model, ident, f"{cls}:{pk}", rc, pd)
                )
    return summarize(results), out


def goal_interpretation_figures(summary: Mapping[str, Any]) -> dict[str, float]:
    """The reference's summary keys as Table 9 names them (node = state, edge =
    relation)."""
    out: dict[str, float] = {}
    for rk, pk in (*GI_TYPES, ("all", "overall")):
        for m in ("precision", "recall", "f1"):
            out[f"{pk}_{m}"] = float(summary[f"{rk}_{m}"])
    return out


def planproof_goal_figures(summary: Mapping[str, Any]) -> dict[str, float]:
    ge = summary["goal_evaluation"]
    return {
        f"{k}_{m}": float(ge[k][m])
        for k in ("state", "relation", "action", "overall")
        for m in ("precision", "recall", "f1")
    }


# ------------------------------------------------------------------------ action sequencing
def _classify_plans(
    module: str,
    file: PublishedFile,
    ref: dict[str, Any],
    score: Callable[[Any, str], tuple[Any, Any, Any]],
    verdict: Callable[[Mapping[str, Any], Any, Any], str | None],
) -> tuple[list[Any], list[Disagreement]]:
    """Score every answer of ``file`` (``score(task, text)`` → (result kept for the
    summary, planproof's trajectory, what else the classifier reads)) and class each task
    against the reference's record (``verdict(record, trajectory, else)``; None: agree)."""
    from planproof.runs.modules import load_tasks

    tasks = {t.identifier: t for t in load_tasks("virtualhome")}
    results = []
    out: list[Disagreement] = []
    for row in json.loads(file.path.read_text(encoding="utf-8")):
        key = str(row["identifier"])
        ident = key.removeprefix("scene_1_")
        result, mine, extra = score(tasks[ident], str(row["llm_output"]))
        results.append(result)
        r = ref["tasks"].get(key, {"reference-no-record": True})
        cls = verdict(r, mine, extra)
        if cls is not None:
            pp = {"executable": mine.executable, "success": mine.success, "error": mine.error_type}
            out.append(Disagreement(module, file.model, ident, cls, r, pp))
    return results, out


def classify_action_sequencing(
    file: PublishedFile, ref: dict[str, Any]
) -> tuple[dict[str, Any], list[Disagreement]]:
    """Per task: executability and success, classed by ``differential_published_as``'s
    rules (docs/reference-differences.md, "Action sequencing (Tables 11, 12)")."""
    from planproof.metrics.action_sequencing import evaluate_response, summarize

    def score(task: Any, text: str) -> tuple[Any, Any, Any]:
        mine = evaluate_response(task, text, "virtualhome")
        return mine, mine, evaluate_response(task, text, "virtualhome", repeated="last")

    results, out = _classify_plans("action-sequencing", file, ref, score, classify_as_task)
    return summarize(results), out


def trajectory_figures(summary: Mapping[str, Any]) -> dict[str, float]:
    """The reference's action-sequencing summary under the paper's figure names (its keys
    are the ones planproof's summary uses)."""
    from planproof.runs.figures import figures

    return figures("action-sequencing", summary)


# -------------------------------------------------------------------- subgoal decomposition
SD_KEYS = {"affordance": "affordance_error", "overall_goal": "total_goal"}
"""The reference's subgoal-decomposition summary keys that action sequencing (and the
paper-name mapping of :func:`planproof.runs.published_sweep.figures`) spells otherwise."""


def _percent(tree: Any) -> Any:
    """The summary with its fractions in percent and its keys renamed (:data:`SD_KEYS`)."""
    if isinstance(tree, Mapping):
        return {SD_KEYS.get(k, k): _percent(v) for k, v in tree.items()}
    if isinstance(tree, int | float) and not isinstance(tree, bool):
        return 100.0 * float(tree)
    return tree


def subgoal_figures(summary: Mapping[str, Any]) -> dict[str, float]:
    """The reference's subgoal-decomposition summary (fractions) under the paper's names."""
    from planproof.runs.figures import figures

    return figures("subgoal-decomposition", _percent(summary))


NOT_EVALUATED = ("NotEvaluated", False, False)
"""The reference's verdict on a task its run left no record of: neither executable nor
successful."""


UNKNOWN_PRIMITIVE = re.compile(r"Unknown primitive: (\w+)")
ROOMS = ("bathroom", "bedroom", "kitchen", "living_room", "home_office", "dining_room")
REFERENCE_SUBGOAL = re.compile(r"\w+\(.*?\)")
"""What ``SubgoalPlanHalfJson.sample_state_from_compound_state`` needs to see in a subgoal
(apart from ``SLEEP``, ``WAKEUP``, ``STANDUP``); any other line is dropped there."""
HELD_BY_HAND = re.compile(r"reaches holds_(?:lh|rh)\(character\.\d+, (\w+)\.(\d+)\)")
UNKNOWN_OBJECT = re.compile(r"unknown object '([^']+)'")


def reference_subgoal_lines(text: str) -> list[Any]:
    """The answer's ``output`` list as the reference finds it
    (:func:`planproof.metrics.reference_subgoal_decomposition.output_list`); [] when it
    finds none."""
    from planproof.metrics.reference_subgoal_decomposition import output_list

    return output_list(text) or []


def dropped_subgoals(text: str) -> list[str]:
    """Subgoal lines the reference drops without a word: not ``NAME(...)`` and not one of
    its zero-argument names (``"DRINK"``)."""
    return [
        line.strip()
        for line in reference_subgoal_lines(text)
        if isinstance(line, str)
        and line.strip()
        and line.strip() not in ("SLEEP", "WAKEUP", "STANDUP")
        and not REFERENCE_SUBGOAL.search(line.strip())
    ]


def in_a_disjunction(text: str, name: str) -> bool:
    """Is object ``name`` written in a subgoal line with `` or ``? The reference keeps one
    disjunct of such a line, drawn by ``random.choice``, and checks only that one."""
    return any(
        isinstance(line, str) and " or " in line and name in line
        for line in reference_subgoal_lines(text)
    )


def reference_plan(info: str) -> list[Any]:
    """The action sequence of a ``Correct`` report (its third item), as planproof's
    actions; [] for any other report."""
    import ast

    from planproof.simulators.core.outcome import Action
    from planproof.simulators.virtualhome.convert import parse_script_line

    try:
        report = ast.literal_eval(info)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return []
    if not (isinstance(report, tuple) and len(report) > 2 and report[0] == "Correct"):
        return []
    seqs = report[2]
    lines = seqs[0] if isinstance(seqs, list) and seqs and isinstance(seqs[0], list) else []
    out = []
    for line in lines:
        parsed = parse_script_line(str(line))
        if parsed is None:
            return []
        name, args = parsed
        out.append(Action(name, tuple(f"{n}.{i}" for n, i in args)))
    return out


def conjunction_never_held(ref_info: str, task: Any, result: Any, text: str) -> bool:
    """Is planproof's failed subgoal a conjunction that holds in no state of the
    reference's own accepted plan, replayed in planproof's world? The reference splits
    ``A and B`` into ``A then B`` (``sample_a_determined_path_from_tl_expr``) and accepts
    each once its translated actions execute, so it never asks whether A and B hold at
    once."""
    from planproof.interface.subgoals import parse_subgoals
    from planproof.ltl.ast import And
    from planproof.simulators.core.replay import replay
    from planproof.simulators.core.search import formula_goal

    failed = result.failed if result is not None else None
    plan = reference_plan(ref_info)
    if failed is None or not plan or task is None:
        return False
    subgoals = parse_subgoals(text, task.world).subgoals
    f = subgoals[failed.index] if failed.index < len(subgoals) else None
    if not isinstance(f, And) or len(f.children) < 2:
        return False
    run = replay(task.world, task.initial, plan)
    goal = formula_goal(task.world, f)
    return run.executable and not any(goal(s, None) for s in run.trace.states)


def classify_subgoal_task(
    ref: Mapping[str, Any],
    mine: Any,
    *,
    task: Any = None,
    text: str = "",
    result: Any = None,
) -> str | None:
    """Why the reference's verdict on one subgoal plan differs from planproof's (None:
    they agree on executability and success). ``mine`` is planproof's trajectory of the
    refined plan; ``task``, the answer's ``text`` and planproof's ``result`` (its
    per-subgoal outcomes) let the classes that read the answer or replay the reference's
    plan be told apart. The classes are documented in docs/reference-differences.md
    ("Subgoal decomposition")."""
    from planproof.runs.subgoal_reference_check import stored_verdict

    # the one reader of the reference's reports (``Runtime`` executable by its second item,
    # as the reference's ``traj_eval_stats`` counts it)
    category, ref_exec, ref_ok = NOT_EVALUATED if ref.get("info") is None else stored_verdict(ref)
    if (ref_exec, ref_ok) == (mine.executable, mine.success):
        return None
    info = str(ref.get("info") or "")
    message = str(mine.error.message) if mine.error is not None else ""
    if category == "Hallucination" and UNKNOWN_PRIMITIVE.search(info):
        return "unknown-primitive"
    unknown = UNKNOWN_OBJECT.search(message)
    if (
        mine.error_type == "hallucination"
        and category != "Hallucination"
        and unknown
        and in_a_disjunction(text, unknown.group(1))
    ):
        return "disjunct-sampled"
    if mine.error_type == "parsing" and ref_exec and dropped_subgoals(text):
        return "unparsable-subgoal-dropped"
    if category == "NotParseable" and info.startswith(
        ("('NotParseable', \"", "('NotParseable', '")
    ):
        return "reference-exception"  # evaluate_task's catch-all: str(exception), not a report
    if category in ("Runtime", "GoalUnreachable") and mine.executable:
        return "refinement-search"
    if ref_exec and mine.executable and ref_ok and not mine.success:
        return "refinement-choice"
    if ref_exec and not mine.executable:
        if any(f"next_to(character.65, {room}." in message for room in ROOMS):
            return "next-to-a-room"
        if re.search(r"next_to\((?!character\.)", message):
            return "next-to-reversed"
        if (
            "putin(character." in message
            or "precondition of sit(" in message
            or re.search(r"sit\([^)]*\) is not afforded: sittable\(", message)
        ):
            return "translator-rule"
        if "ADDITIONAL_STEP" in info:
            return "additional-step-accepted"
        held = HELD_BY_HAND.search(message)
        if held and f"[GRAB] <{held.group(1)}> ({held.group(2)})" in info:
            return "translator-rule"  # HOLDS_LH / HOLDS_RH → GRAB, into the first free hand
        if conjunction_never_held(info, task, result, text):
            return "conjunction-as-sequence"
        if re.search(r"no single action reaches .*\) and ", message):
            return "conjunctive-subgoal"
    return f"unexplained:{category}"


def classify_subgoal_decomposition(
    file: PublishedFile, ref: dict[str, Any]
) -> tuple[dict[str, Any], list[Disagreement]]:
    from planproof.metrics.subgoal_decomposition import evaluate_subgoal_response, summarize

    def score(task: Any, text: str) -> tuple[Any, Any, Any]:
        res = evaluate_subgoal_response(task, text)
        return res, res.trajectory, (task, text, res)

    def verdict(r: Mapping[str, Any], mine: Any, extra: Any) -> str | None:
        task, text, res = extra
        return classify_subgoal_task(r, mine, task=task, text=text, result=res)

    results, out = _classify_plans("subgoal-decomposition", file, ref, score, verdict)
    return summarize(results), out


# --------------------------------------------------------------------- transition modeling
TM_CATEGORIES = (
    "object_states",
    "object_orientation",
    "object_affordance",
    "spatial_relations",
    "non-spatial_relations",
)


def classify_transition_modeling(
    file: PublishedFile, ref: dict[str, Any]
) -> tuple[dict[str, Any], list[Disagreement]]:
    from planproof.metrics.transition_modeling.evaluate import evaluate_responses
    from planproof.pddl.eai import load_eai_pddl

    data = load_eai_pddl("virtualhome")
    rows = json.loads(file.path.read_text(encoding="utf-8"))
    # the reference plans with Fast Downward (lama-first, 100 s); pyperplan gives the same
    # verdict on every published GPT-4o task (296 of 296) for a tenth of the CPU time
    report = evaluate_responses(data, rows, engine="pyperplan", timeout=100.0)
    answers = {str(r["identifier"]): str(r["llm_output"]) for r in rows}
    out: list[Disagreement] = []
    for r in report.tasks:
        rt = ref["tasks"].get(r.identifier, {})
        if "planner_success" not in rt:
            cls = "reference-unreadable" if rt.get("format_wrong") else "reference-no-verdict"
            out.append(
                Disagreement(
                    "transition-modeling", file.model, r.identifier, cls, rt, r.planner_found
                )
            )
            continue
        if bool(rt["planner_success"]) != bool(r.planner_found):
            cls = "planner-success-differs"
            if r.planner_found and undeclared_constant_failed(
                answers.get(r.identifier, ""), rt.get("actions", {})
            ):
                cls = "undeclared-constant"
            elif not r.planner_found and reference_read_no_operator(
                answers.get(r.identifier, ""), data.task_actions[r.identifier], rt
            ):
                cls = "reference-reads-no-operator"
            elif r.hallucinated:
                # the reference writes every operator of the answer into its domain, those
                # the task does not ask for too; planproof plans with the task's operators
                cls = "hallucinated-operator-in-domain"
            out.append(
                Disagreement(
                    "transition-modeling",
                    file.model,
                    r.identifier,
                    cls,
                    rt["planner_success"],
                    {"found": r.planner_found, "status": r.planner_status},
                )
            )
    return report.summary(), out


def operator_constants(answer: str) -> dict[str, set[str]]:
    """Per operator of an answer, the names it uses as constants (``(inside ?char
    bathroom)``). The VirtualHome domain declares no ``:constants``, so Fast Downward's
    translator, which the reference runs on the domain with these operators written in,
    stops at each ("Undefined object"); planproof reads such a name as the problem's object
    (docs/reference-differences.md, ``undeclared-constant``)."""
    from planproof.ltl.ast import Atom, Const, walk
    from planproof.pddl.schema import When, all_effects, effect_atoms
    from planproof.pddl.tolerant import OperatorParseError, read_operators

    try:
        ops = read_operators(answer)
    except OperatorParseError:
        return {}
    out: dict[str, set[str]] = {}
    for name, parsed in ops.items():
        op = parsed.operator
        if op is None:
            continue
        formulas = [op.precondition]
        formulas += [e.condition for e in all_effects(op.effects) if isinstance(e, When)]
        atoms = [n for f in formulas for n in walk(f) if isinstance(n, Atom)]
        atoms += [a for a, _positive in effect_atoms(op.effects)]
        names = {x.name for a in atoms for x in a.args if isinstance(x, Const)}
        if names:
            out[name] = names
    return out


def undeclared_constant_failed(answer: str, trials: Mapping[str, bool]) -> bool:
    """Does the answer name an undeclared constant, and did every one of its operators that
    does fail the reference's own per-operator trial ("Action test": the gold domain with
    only that operator replaced), at least one having been tried? Then the reference's
    planner failure is the translator's "Undefined object", not the task."""
    tried = [n for n in operator_constants(answer) if n in trials]
    return bool(tried) and not any(trials[n] for n in tried)


REFERENCE_ACTION = re.compile(r"\(:action\s+(\w+)")
"""The operator header ``extract_action_details`` of the reference looks for."""


def reference_operator_names(answer: str) -> set[str]:
    """The operators the reference reads from an answer, as its evaluator does: a leading
    json fence cut, newlines dropped and ``'`` made ``"`` before ``json.loads`` (its
    ``output`` when that works, the text otherwise), then ``;`` to the end of the line
    removed (with the newlines gone, to the end of the answer) and an operator kept only
    while ``:parameters``, ``:precondition`` and ``:effect`` all follow its header."""
    text = reference_cleanup(answer)
    try:
        doc = json.loads(text)
        text = doc["output"] if isinstance(doc, dict) else text
    except (ValueError, KeyError):
        pass
    if not isinstance(text, str):
        return set()  # the reference's reader fails on a list: a format error there
    text = " ".join(re.sub(r";.*$", "", text, flags=re.MULTILINE).split())
    names: set[str] = set()
    for m in REFERENCE_ACTION.finditer(text):
        if -1 in (text.find(k, m.end()) for k in (":parameters", ":precondition", ":effect")):
            break
        names.add(m.group(1).lower())
    return names


def reference_read_no_operator(
    answer: str, task_actions: Sequence[str], rt: Mapping[str, Any]
) -> bool:
    """Did the reference read none of the task's operators from the answer (its pattern
    :data:`REFERENCE_ACTION` misses ``( :action walk_towards`` and ``(**:action grab:``; a
    ``;`` comment, once the newlines are gone, hides the rest of the answer), and so try
    none of them alone? Its domain is then the gold one, and it finds a plan."""
    wanted = {a.lower() for a in task_actions}
    return not rt.get("actions") and not reference_operator_names(answer) & wanted


def transition_figures(summary: Mapping[str, Any], *, planner: bool = True) -> dict[str, float]:
    """The reference's summary figures; without its planner, the planner-success rates
    (then all 0) are left out."""
    out: dict[str, float] = {}
    for cat in TM_CATEGORIES:
        for k, v in summary.get(cat, {}).items():
            if planner or k != "planner_success_rate":
                out[f"{cat}_{k}"] = float(v)
    return out


def classify_transition_logic_form(
    file: PublishedFile, ref: dict[str, Any]
) -> tuple[dict[str, Any], list[Disagreement]]:
    """With the reference's planner disabled: planproof without its planner, and the
    reference's logic-form figures against planproof's reading of the reference's rule
    (:mod:`planproof.pddl.reference_logic_form`); a category where the two differ is
    ``logic-form-unexplained``."""
    from planproof.metrics.transition_modeling.evaluate import evaluate_responses
    from planproof.pddl.eai import load_eai_pddl
    from planproof.pddl.reference_logic_form import reference_logic_form_figures

    data = load_eai_pddl("virtualhome")
    rows = json.loads(file.path.read_text(encoding="utf-8"))
    report = evaluate_responses(data, rows, run_planner=False)
    theirs = transition_figures(ref["summary"], planner=False)
    ours = reference_logic_form_figures(data, rows)
    out = [
        Disagreement(
            "transition-modeling", file.model, name, "logic-form-unexplained", value, ours.get(name)
        )
        for name, value in theirs.items()
        if ours.get(name) is None or abs(ours[name] - value) > 1e-3
    ]
    summary = report.summary()
    summary["reference_reading"] = ours
    return summary, out


CLASSIFIERS: dict[str, Classifier] = {
    "goal-interpretation": classify_goal_interpretation,
    "action-sequencing": classify_action_sequencing,
    "subgoal-decomposition": classify_subgoal_decomposition,
    "transition-modeling": classify_transition_logic_form,
}
REFERENCE_FIGURES: dict[str, Callable[[Mapping[str, Any]], dict[str, float]]] = {
    "goal-interpretation": goal_interpretation_figures,
    "action-sequencing": trajectory_figures,
    "subgoal-decomposition": subgoal_figures,
    "transition-modeling": lambda summary: transition_figures(summary, planner=False),
}
EVERY: dict[str, int] = {
    "goal-interpretation": 1,
    "action-sequencing": 1,
    "subgoal-decomposition": 6,
    "transition-modeling": 1,
}
"""Default sampling per module: every n-th task of each file (see the module docstring)."""


# ----------------------------------------------------------------------------- driver
def reference_input(file: PublishedFile, every: int, tmp: Path) -> PublishedFile:
    """The file the reference sees: the published file itself, or every ``every``-th task
    of it written to ``tmp`` (``json.dumps`` of the rows: the same bytes on every run, so
    the cached verdict is found again)."""
    if every <= 1:
        return file
    rows = json.loads(file.path.read_text(encoding="utf-8"))[::every]
    sample = tmp / f"{file.module}-{file.model}-every{every}.json"
    sample.parent.mkdir(parents=True, exist_ok=True)
    sample.write_text(json.dumps(rows), encoding="utf-8")
    return PublishedFile(file.module, file.dataset, file.model, sample)


def sample_info(file: PublishedFile, used: PublishedFile, every: int) -> dict[str, int] | None:
    """``{"every", "tasks", "of"}`` for a sampled cell, None for a whole file."""
    if every <= 1:
        return None
    total = len(json.loads(file.path.read_text(encoding="utf-8")))
    tasks = len(json.loads(used.path.read_text(encoding="utf-8")))
    return {"every": every, "tasks": tasks, "of": total}


def compare(
    modules: Sequence[str],
    models: Sequence[str],
    workdir: Path,
    *,
    every: Mapping[str, int] | None = None,
    tm_planner: bool = False,
    only_cached: bool = False,
    log: bool = True,
) -> dict[str, Any]:
    """Run both evaluators on every (module, model) file (or its sample, ``every``) and
    classify the differences."""
    cells: dict[str, dict[str, Any]] = defaultdict(dict)
    disagreements: list[Disagreement] = []
    steps = {**EVERY, **(every or {})}
    for module in modules:
        planner = tm_planner or module != "transition-modeling"
        classifier = CLASSIFIERS[module] if planner else classify_transition_logic_form
        if module == "transition-modeling" and planner:
            classifier = classify_transition_modeling
        for f in published_files(module, "virtualhome"):
            if models and f.model not in models:
                continue
            used = reference_input(f, steps[module], workdir / "samples")
            if (
                only_cached
                and not published_run_path(module, f.model, used.path, planner=planner).is_file()
            ):
                print(f"{module} {f.model}: no cached reference verdict, left out", file=sys.stderr)
                continue
            t0 = time.perf_counter()
            ref, cached = reference_published_cached(
                module, f.model, used.path, workdir, planner=planner
            )
            t1 = time.perf_counter()
            summary, diffs = classifier(used, ref)
            t2 = time.perf_counter()
            disagreements += diffs
            figs = (
                transition_figures(ref["summary"], planner=planner)
                if module == "transition-modeling"
                else REFERENCE_FIGURES[module](ref["summary"])
            )
            cells[module][f.model] = {
                "reference": figs,
                "reference_summary": ref["summary"],
                "reference_seconds": ref["seconds"],
                "reference_cached": cached,
                "reference_planner": planner,
                "sample": sample_info(f, used, steps[module]),
                "planproof_summary": summary,
                "planproof_seconds": t2 - t1,
                "disagreements": dict(Counter(d.cls for d in diffs)),
            }
            if log:
                print(
                    f"{module} {f.model}: reference {ref['seconds']:.0f} s"
                    f"{' (cached)' if cached else ''} [{t1 - t0:.1f} s now], planproof "
                    f"{t2 - t1:.1f} s, {len(diffs)} disagreements",
                    file=sys.stderr,
                    flush=True,
                )
    return {"cells": cells, "disagreements": [asdict(d) for d in disagreements]}


def write_figures(result: Mapping[str, Any], versions: Mapping[str, str]) -> Path:
    """The reference's figures per module x model, as package data, with how they were
    made. Cells already in the file for modules or models not run now are kept."""
    try:
        doc = json.loads(FIGURES_PATH.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        doc = {"modules": {}}
    doc["produced_by"] = {
        "command": "python benchmarks/differential_published.py --write-figures",
        "evaluator": f"virtualhome-eval {VHE_WHEEL.version} (sha256 {VHE_WHEEL.sha256})",
        "how": "each module's unmodified evaluate_results on one published file at a time, "
        "in its own venv (benchmarks/reference_env.py, flavours 'published' and "
        "'published-transition-modeling'), driven by benchmarks/reference_published_driver.py; "
        "a cell with 'sample' saw only every n-th task of the file; transition modeling "
        "with 'planner': false ran with the reference's planner disabled (logic-form figures), "
        "its planner-success figures, where present, come from a run with the planner on "
        "'planner_sample' (every n-th task)",
        "versions": dict(versions),
    }
    for module, by_model in result["cells"].items():
        slot = doc["modules"].setdefault(module, {})
        for model, cell in by_model.items():
            if (
                module == "transition-modeling"
                and cell.get("reference_planner")
                and (isinstance(slot.get(model), dict) and slot[model].get("planner") is False)
            ):
                slot[model] = planner_entry(slot[model], cell)
                continue
            entry: dict[str, Any] = {
                "figures": cell["reference"],
                "seconds": round(float(cell["reference_seconds"]), 1),
            }
            if cell.get("sample"):
                entry["sample"] = cell["sample"]
            if module == "transition-modeling":
                entry["planner"] = bool(cell.get("reference_planner", True))
            slot[model] = entry
    FIGURES_PATH.parent.mkdir(parents=True, exist_ok=True)
    FIGURES_PATH.write_text(json.dumps(doc, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return FIGURES_PATH


def planner_entry(stored: Mapping[str, Any], cell: Mapping[str, Any]) -> dict[str, Any]:
    """A transition-modeling cell whose logic-form figures are the whole file's (planner
    disabled) with the planner-success figures of a run with the planner added, and that
    run's sample (``"planner_sample"``; None: the whole file): the whole-file logic-form
    figures are kept, never replaced by a sample's."""
    planner = {k: v for k, v in cell["reference"].items() if k.endswith(PLANNER_FIGURE)}
    figures = {k: v for k, v in stored["figures"].items() if not k.endswith(PLANNER_FIGURE)}
    entry = {
        **stored,
        "figures": {**figures, **planner},
        "planner_seconds": round(float(cell["reference_seconds"]), 1),
    }
    entry.pop("planner_sample", None)
    if cell.get("sample"):
        entry["planner_sample"] = cell["sample"]
    return entry


def cached_reference_cells(
    modules: Sequence[str], every: Mapping[str, int], workdir: Path, *, tm_planner: bool = False
) -> dict[str, Any]:
    """The reference's figures for every (module, model) whose verdict is already in the
    cache (nothing is run), in the shape :func:`write_figures` reads."""
    cells: dict[str, dict[str, Any]] = defaultdict(dict)
    steps = {**EVERY, **every}
    for module in modules:
        planner = tm_planner or module != "transition-modeling"
        for f in published_files(module, "virtualhome"):
            used = reference_input(f, steps[module], workdir)
            path = published_run_path(module, f.model, used.path, planner=planner)
            if path.is_file():
                ref = json.loads(path.read_text(encoding="utf-8"))
                figs = (
                    transition_figures(ref["summary"], planner=planner)
                    if module == "transition-modeling"
                    else REFERENCE_FIGURES[module](ref["summary"])
                )
                cells[module][f.model] = {
                    "reference": figs,
                    "reference_seconds": ref["seconds"],
                    "reference_planner": planner,
                    "sample": sample_info(f, used, steps[module]),
                }
    return {"cells": cells}


def planproof_figures(module: str, summary: Mapping[str, Any]) -> dict[str, float]:
    """planproof's figures under the reference's names (transition modeling: its reading of
    the reference's counting, next to its own clause F1 as ``<category>_own_f1``)."""
    from planproof.runs.figures import figures

    if module == "goal-interpretation":
        return planproof_goal_figures(summary)
    if module == "transition-modeling":
        own = {
            f"{c}_own_f1": 100.0 * float(v["f1"])
            for c, v in summary.get("by_category", {}).items()
            if c in TM_CATEGORIES
        }
        planner = {
            f"{c}_planner_success_rate": 100.0 * float(v["planner_found"])
            for c, v in (summary.get("planner_by_category") or {}).items()
            if c in TM_CATEGORIES and v.get("planner_found") is not None
        }
        return {**summary.get("reference_reading", {}), **own, **planner}
    return figures(module, summary)


AGREEMENT_FIGURES: dict[str, tuple[str, ...]] = {
    "goal-interpretation": ("overall_f1",),
    "action-sequencing": ("task_success", "execution_success"),
    "subgoal-decomposition": ("task_success", "execution_success"),
    "transition-modeling": (
        *(f"{c}_f1" for c in TM_CATEGORIES),
        *(f"{c}_planner_success_rate" for c in TM_CATEGORIES),
    ),
}
"""The headline figures of the table of agreement, per module."""


def agreement_table(result: Mapping[str, Any]) -> str:
    """Per model x module: the reference's figure and planproof's on the same file (or
    sample), "=" where equal to the printed decimal, and the named classes of every
    per-task disagreement (transition modeling: the reference's counting reproduced, then
    planproof's own clause F1)."""
    lines = [
        "| model | module | file | reference / planproof | per-task classes |",
        "|---|---|---|---|---|",
    ]
    for module, by_model in result["cells"].items():
        for model, c in by_model.items():
            pp = planproof_figures(module, c["planproof_summary"])
            parts = []
            for fig in AGREEMENT_FIGURES[module]:
                ref, mine = c["reference"].get(fig), pp.get(fig)
                if ref is None:
                    continue
                mark = "=" if mine is not None and f"{ref:.1f}" == f"{mine:.1f}" else "≠"
                short = (
                    fig.removesuffix("_f1")
                    .replace("_planner_success_rate", " planner")
                    .replace("_success", "")
                )
                text = (
                    f"{short} {ref:.1f} {mark} {mine:.1f}"
                    if mine is not None
                    else f"{short} {ref:.1f}"
                )
                own = pp.get(fig.replace("_f1", "_own_f1"))
                if module == "transition-modeling" and own is not None:
                    text += f" (own {own:.1f})"
                parts.append(text)
            sample = c.get("sample")
            size = f"{sample['tasks']} of {sample['of']}" if sample else "whole"
            dis = ", ".join(f"{k} {v}" for k, v in sorted(c["disagreements"].items())) or "none"
            lines.append(
                f"| {MODELS.get(model, model)} | {module} | {size} | {'; '.join(parts)} | {dis} |"
            )
    return "\n".join(lines) + "\n"


UNEXPLAINED = ("simulator", "planner-success-differs")
"""The generic classes left when no traced cause fits (besides ``unexplained:*``)."""
NOT_COMPARED = ("gold-test", "reference-skips-unparsable-response", "reference-unreadable")
"""Tasks the reference leaves out: its gold test (action sequencing), answers it cannot
read (goal interpretation, transition modeling)."""


def is_unexplained(cls: str) -> bool:
    return cls in UNEXPLAINED or cls.startswith("unexplained")


def agreement_summary(result: Mapping[str, Any]) -> str:
    """One row per model, one column per module: reference / planproof headline figure
    on the same file or sample, and how many per-task disagreements are classed
    (``unexplained`` ones and the reference's gold-test exclusions counted apart)."""
    modules = list(result["cells"])
    heads = {
        "goal-interpretation": "overall F1",
        "action-sequencing": "task success",
        "subgoal-decomposition": "task success",
        "transition-modeling": "object-states F1 (counted as the reference / own)",
    }
    lines = [
        "| model | " + " | ".join(f"{m}: {heads.get(m, '')}" for m in modules) + " |",
        "|---" * (len(modules) + 1) + "|",
    ]
    models = sorted({m for by in result["cells"].values() for m in by}, key=str)
    for model in models:
        cells = []
        for module in modules:
            c = result["cells"][module].get(model)
            if c is None:
                cells.append("not run")
                continue
            fig = AGREEMENT_FIGURES[module][0]
            pp = planproof_figures(module, c["planproof_summary"])
            ref, mine = c["reference"].get(fig), pp.get(fig)
            text = f"{ref:.1f} / {mine:.1f}" if ref is not None and mine is not None else "—"
            if module == "transition-modeling":
                text += f" / {pp.get(fig.replace('_f1', '_own_f1'), float('nan')):.1f}"
            counts = c["disagreements"]
            unexplained = sum(v for k, v in counts.items() if is_unexplained(k))
            skipped = sum(counts.get(k, 0) for k in NOT_COMPARED)
            classed = sum(counts.values()) - unexplained - skipped
            sample = c.get("sample")
            text += f" ({sample['tasks']}/{sample['of']})" if sample else ""
            text += f"; classed {classed}"
            text += f", not compared {skipped}" if skipped else ""
            text += f", **unexplained {unexplained}**" if unexplained else ""
            cells.append(text)
        lines.append(f"| {MODELS.get(model, model)} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def markdown(result: Mapping[str, Any]) -> str:
    lines = ["# planproof vs the published reference (virtualhome-eval 0.1.1)", ""]
    lines += ["Each cell: reference / planproof. Classes: docs/reference-differences.md.", ""]
    for module, by_model in result["cells"].items():
        lines += [f"## {module}", ""]
        keys = sorted({k for c in by_model.values() for k in c["reference"]})
        heads = ("overall", "task_success", "execution_success", "goal_total")
        show = [k for k in keys if k.startswith(heads) or k.endswith("_f1")] or keys
        lines.append("| model | sample | " + " | ".join(show) + " | disagreements |")
        lines.append("|---" * (len(show) + 3) + "|")
        for model, c in by_model.items():
            pp = planproof_figures(module, c["planproof_summary"])
            vals = [f"{c['reference'][k]:.1f} / {pp.get(k, float('nan')):.1f}" for k in show]
            sample = c.get("sample")
            size = f"{sample['tasks']} of {sample['of']}" if sample else "whole file"
            dis = ", ".join(f"{k} {v}" for k, v in sorted(c["disagreements"].items()))
            lines.append(
                f"| {MODELS.get(model, model)} | {size} | " + " | ".join(vals) + f" | {dis} |"
            )
        lines.append("")
    lines += ["## Agreement per model", "", agreement_summary(result)]
    lines += ["## Table of agreement", "", agreement_table(result)]
    by_cls = Counter((d["module"], d["cls"]) for d in result["disagreements"])
    lines += ["## Disagreements by class", ""]
    lines += [f"- {m} `{c}`: {n} task(s)" for (m, c), n in sorted(by_cls.items())]
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--module", action="append", choices=sorted(CLASSIFIERS))
    ap.add_argument("--model", action="append", choices=sorted(MODELS))
    ap.add_argument(
        "--every",
        action="append",
        default=[],
        metavar="[MODULE=]N",
        help="the reference sees every n-th task of each file (of MODULE's files only when "
        "given; default per module: " + ", ".join(f"{m} {n}" for m, n in EVERY.items()) + ")",
    )
    ap.add_argument(
        "--only-cached",
        action="store_true",
        help="compare only the files whose reference verdict is already cached (run nothing)",
    )
    ap.add_argument(
        "--tm-planner",
        action="store_true",
        help="transition modeling with the reference's planner (~15 min per file)",
    )
    ap.add_argument("--write-figures", action="store_true")
    ap.add_argument(
        "--cached-only",
        action="store_true",
        help="with --write-figures: record the reference verdicts already cached, run nothing",
    )
    ap.add_argument(
        "--render",
        action="store_true",
        help="rewrite the .md from the last results .json (run nothing)",
    )
    args = ap.parse_args(argv)
    if args.render:
        doc = json.loads((RESULTS / "differential_published.json").read_text(encoding="utf-8"))
        (RESULTS / "differential_published.md").write_text(markdown(doc), encoding="utf-8")
        print(markdown(doc))
        return 0
    modules = args.module or sorted(CLASSIFIERS)
    every: dict[str, int] = {}
    for item in args.every:
        module, _, n = str(item).rpartition("=")
        for m in [module] if module else modules:
            every[m] = int(n)
    versions = {"virtualhome_eval": VHE_WHEEL.version}
    with tempfile.TemporaryDirectory(prefix="planproof-published-") as tmp:
        if args.cached_only:
            cells = cached_reference_cells(modules, every, Path(tmp), tm_planner=args.tm_planner)
            print(f"wrote {write_figures(cells, versions)}")
            return 0
        result = compare(
            modules,
            args.model or [],
            Path(tmp),
            every=every,
            tm_planner=args.tm_planner,
            only_cached=args.only_cached,
        )
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "differential_published.json").write_text(
        json.dumps(result, indent=1, default=str) + "\n", encoding="utf-8"
    )
    (RESULTS / "differential_published.md").write_text(markdown(result), encoding="utf-8")
    if args.write_figures:
        print(f"wrote {write_figures(result, versions)}", file=sys.stderr)
    print(markdown(result))
    return 0


assert set(CLASSIFIERS) <= set(PUBLISHED_MODULES)

if __name__ == "__main__":
    sys.exit(main())
