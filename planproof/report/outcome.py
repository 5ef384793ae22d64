"""One task of one run as the drill-down shows it: a status, a short badge, the replayed
trace with the failing step marked, the first error and the warnings, and labelled facts
and lists. Each module's evaluator writes its own per-task JSON; this module reads the
four shapes (and falls back to a generic view for anything else), defensively, because a
results file may come from another planproof version or be edited by hand."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from planproof.report.load import (
    ResponseRecord,
    as_bool,
    as_dict,
    as_int,
    as_list,
    as_str,
    opt_float,
    str_list,
)

# Task status: ok (solved), fail (evaluated, not solved), error (the model call failed),
# pending (a response without an evaluation).
OK, FAIL, ERROR, PENDING = "ok", "fail", "error", "pending"
# Step status in a trace.
STEP_OK, STEP_WARN, STEP_FAIL, STEP_SKIP = "ok", "warn", "fail", "skip"


@dataclass(frozen=True, slots=True)
class Step:
    """One line of a trace; ``number`` is 1-based as people count steps."""

    number: int
    text: str
    status: str = STEP_OK
    note: str = ""


@dataclass(frozen=True, slots=True)
class StepList:
    title: str
    steps: tuple[Step, ...]


@dataclass(frozen=True, slots=True)
class Issue:
    """An error or warning: its type, message, and where (1-based step) when known."""

    kind: str
    message: str
    step: int | None = None
    action: str | None = None
    unmet: tuple[str, ...] = ()

    @property
    def unmet_not_in_message(self) -> tuple[str, ...]:
        """The unmet conditions the message does not already spell out."""
        return tuple(u for u in self.unmet if u not in self.message)


@dataclass(frozen=True, slots=True)
class TaskOutcome:
    status: str
    badge: str
    first_error: Issue | None = None
    warnings: tuple[Issue, ...] = ()
    step_lists: tuple[StepList, ...] = ()
    facts: tuple[tuple[str, str], ...] = ()
    lists: tuple[tuple[str, tuple[str, ...]], ...] = ()


def pct(value: float | None, scale: float = 1.0) -> str:
    """``83.3`` style; an em dash for a missing value."""
    return "—" if value is None else f"{value * scale:.1f}"


def read_issue(doc: object) -> Issue | None:
    """An evaluator's error record (``error_type``, ``message``, 0-based ``step``,
    ``action``, ``unmet``) with its step counted from 1, as the page shows steps."""
    d = as_dict(doc)
    if not d:
        return None
    step = d.get("step")
    action = d.get("action")
    return Issue(
        kind=as_str(d.get("error_type"), "error"),
        message=as_str(d.get("message")),
        step=as_int(step) + 1 if isinstance(step, int) and not isinstance(step, bool) else None,
        action=action if isinstance(action, str) else None,
        unmet=str_list(d.get("unmet")),
    )


def named_lists(
    *items: tuple[str, tuple[str, ...]],
) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """The (title, items) pairs that have items: an empty list is not shown."""
    return tuple((k, v) for k, v in items if v)


def replay_trace(
    title: str,
    actions: tuple[str, ...],
    executed: int,
    error: Issue | None,
    warnings: tuple[Issue, ...],
) -> StepList:
    """Executed steps ok (or warnings), the failing step marked, the rest not run. An error
    placed after the last action (a diagnosed missing action) gets its own line."""
    warn_at = {w.step for w in warnings if w.step is not None}
    fail_at = error.step if error is not None and error.action is not None else None
    steps: list[Step] = []
    for i, text in enumerate(actions, start=1):
        if i == fail_at:
            steps.append(Step(i, text, STEP_FAIL, error.kind if error else ""))
        elif i <= executed:
            steps.append(Step(i, text, STEP_WARN if i in warn_at else STEP_OK))
        else:
            steps.append(Step(i, text, STEP_SKIP, "not run"))
    if (
        error is not None
        and error.action is not None
        and fail_at is not None
        and (fail_at > len(actions))
    ):
        steps.append(Step(fail_at, error.action, STEP_FAIL, error.kind))
    return StepList(title, tuple(steps))


def _goal_facts(result: Mapping[str, Any]) -> list[tuple[str, str]]:
    facts: list[tuple[str, str]] = []
    for kind, raw in as_dict(result.get("goals")).items():
        c = as_dict(raw)
        total = as_int(c.get("total"))
        if total:
            facts.append((f"{kind} goals", f"{as_int(c.get('met'))} of {total} met"))
    partial = opt_float(result.get("partial_success"))
    if partial is not None:
        facts.append(("partial success", f"{pct(partial, 100)} %"))
    return facts


def action_sequencing(result: Mapping[str, Any]) -> TaskOutcome:
    error = read_issue(result.get("error"))
    warnings = tuple(
        w for w in (read_issue(x) for x in as_list(result.get("additional_steps"))) if w is not None
    )
    actions = str_list(result.get("actions"))
    executed = as_int(result.get("executed"))
    success = as_bool(result.get("success"))
    if success:
        badge = "✓"
    elif error is not None:
        badge = error.kind.replace("_", " ")
    else:
        badge = "goal unmet"
    facts = [
        ("executable", "yes" if as_bool(result.get("executable")) else "no"),
        ("steps", f"{executed} of {as_int(result.get('steps'))} executed"),
        *_goal_facts(result),
    ]
    return TaskOutcome(
        status=OK if success else FAIL,
        badge=badge,
        first_error=error,
        warnings=warnings,
        step_lists=(replay_trace("Replayed actions", actions, executed, error, warnings),),
        facts=tuple(facts),
        lists=named_lists(
            ("Unmet goals", str_list(result.get("unmet_goals"))),
            ("Parser notes", str_list(result.get("notes"))),
        ),
    )


_SUBGOAL_STATUS = {"reached": STEP_OK, "already_true": STEP_WARN}


def subgoal_decomposition(result: Mapping[str, Any]) -> TaskOutcome:
    base = action_sequencing(result)
    subgoals: list[Step] = []
    for i, raw in enumerate(as_list(result.get("subgoals"))):
        s = as_dict(raw)
        status = as_str(s.get("status"))
        acts = ", ".join(str_list(s.get("actions")))
        note = status.replace("_", " ")
        if acts:
            note += f" by {acts}"
        if as_str(s.get("message")):
            note += f" — {as_str(s.get('message'))}"
        number = as_int(s.get("index"), i) + 1
        subgoals.append(
            Step(number, as_str(s.get("subgoal")), _SUBGOAL_STATUS.get(status, STEP_FAIL), note)
        )
    grammar = as_dict(result.get("grammar_error"))
    error = base.first_error
    if grammar and error is None:
        error = Issue(as_str(grammar.get("error_type"), "parsing"), as_str(grammar.get("message")))
    lists = list(base.lists)
    if grammar and as_str(grammar.get("subgoal")):
        lists.append(("Subgoal with the grammar error", (as_str(grammar.get("subgoal")),)))
    trace = base.step_lists[0]
    return TaskOutcome(
        status=base.status,
        badge=base.badge,
        first_error=error,
        warnings=base.warnings,
        step_lists=(
            StepList("Subgoals (refined in order)", tuple(subgoals)),
            StepList("Refined actions, replayed", trace.steps),
        ),
        facts=base.facts,
        lists=tuple(lists),
    )


def _prf(c: Mapping[str, Any]) -> str:
    return (
        f"P {pct(opt_float(c.get('precision')))} · R {pct(opt_float(c.get('recall')))} · "
        f"F1 {pct(opt_float(c.get('f1')))} (tp {as_int(c.get('tp'))}, fp {as_int(c.get('fp'))}, "
        f"fn {as_int(c.get('fn'))})"
    )


def _verdict(v: object) -> str:
    return "yes" if v is True else "no" if v is False else "undecided"


def goal_interpretation(result: Mapping[str, Any]) -> TaskOutcome:
    parse_error = as_str(result.get("parse_error"))
    f1 = opt_float(result.get("f1"))
    counts = as_dict(result.get("counts"))
    perfect = (
        not parse_error
        and bool(counts)
        and all(
            isinstance(c, dict) and as_int(c.get("fp")) == 0 and as_int(c.get("fn")) == 0
            for c in counts.values()
        )
    )
    facts = [("overall", _prf(result))]
    facts += [(f"{k} goals", _prf(as_dict(c))) for k, c in counts.items()]
    logic = as_dict(result.get("logic"))
    if logic:
        facts.append(
            (
                "Z3",
                f"satisfiable {_verdict(logic.get('satisfiable'))} · entails gold "
                f"{_verdict(logic.get('entails_gold'))} · entailed by gold "
                f"{_verdict(logic.get('entailed_by_gold'))} · equivalent "
                f"{_verdict(logic.get('equivalent'))}"
                + (f" ({as_str(logic.get('message'))})" if as_str(logic.get("message")) else ""),
            )
        )

    def issues(key: str) -> tuple[str, ...]:
        return tuple(
            f"{as_str(as_dict(i).get('item'))} — {as_str(as_dict(i).get('message'))}"
            for i in as_list(result.get(key))
        )

    option = as_str(result.get("best_gold_option"))
    hallucinated = issues("hallucinations")
    perfect = perfect and not hallucinated and not issues("format_errors")
    if perfect:
        badge = "✓"
    elif parse_error:
        badge = "unparsable"
    elif f1 is not None and f1 >= 100 and hallucinated:
        badge = "hallucination"
    elif f1 is not None and f1 >= 100:
        badge = "format error"
    else:
        badge = f"F1 {pct(f1)}"
    return TaskOutcome(
        status=OK if perfect else FAIL,
        badge=badge,
        first_error=Issue("parsing", parse_error) if parse_error else None,
        facts=tuple(facts),
        lists=named_lists(
            ("Missed gold goals", str_list(result.get("missed_goals"))),
            ("Extra predicted goals", str_list(result.get("extra_goals"))),
            ("Hallucinated items", hallucinated),
            ("Format errors", issues("format_errors")),
            ("Closest gold option", (option,) if option else ()),
            ("Parser notes", str_list(result.get("notes"))),
        ),
    )


def _tm_counts(result: Mapping[str, Any]) -> tuple[int, int, int]:
    tp = fp = fn = 0
    for raw in as_list(result.get("scores")):
        s = as_dict(raw)
        tp += as_int(s.get("tp"))
        fp += as_int(s.get("fp"))
        fn += as_int(s.get("fn"))
    return tp, fp, fn


def _verdict_lines(result: Mapping[str, Any]) -> tuple[str, ...]:
    """``evaluate transition-modeling --compare-operators``: one line per operator."""
    out = []
    for raw in as_list(result.get("verdicts")):
        v = as_dict(raw)
        found = [
            f"{as_str(as_dict(f).get('kind'))} {as_str(as_dict(f).get('literal'))}".strip()
            for f in as_list(v.get("findings"))
        ]
        line = f"{as_str(v.get('reference'))}: {as_str(v.get('verdict'))}"
        out.append(line + (f" ({'; '.join(found)})" if found else ""))
    return tuple(out)


def transition_modeling(result: Mapping[str, Any]) -> TaskOutcome:
    fmt = as_str(result.get("format_error"))
    tp, fp, fn = _tm_counts(result)
    f1 = 2 * tp / (2 * tp + fp + fn) if tp + fp + fn else 1.0
    planner = as_str(result.get("planner_status"))
    found = as_bool(result.get("planner_found"))
    valid = as_bool(result.get("plan_valid_under_gold"))
    hallucinated = str_list(result.get("hallucinated"))
    missing = str_list(result.get("missing"))
    error: Issue | None = None
    if fmt:
        error = Issue("format", fmt)
    elif planner and not found:
        error = Issue(f"planner: {planner}", as_str(result.get("planner_reason")))
    elif found and not valid:
        error = Issue("plan invalid under gold operators", as_str(result.get("gold_failure")))
    exact = not fmt and fp == 0 and fn == 0 and not hallucinated and not missing
    ok = exact and (not planner or valid)
    if ok:
        badge = "✓"
    elif fmt:
        badge = "format error"
    elif exact:
        badge = "plan failed"
    else:
        badge = f"F1 {pct(f1, 100)}"
    scores: list[str] = []
    unmatched_pred: list[str] = []
    unmatched_gold: list[str] = []
    for raw in as_list(result.get("scores")):
        s = as_dict(raw)
        where = f"{as_str(s.get('name'))} {as_str(s.get('part'))}"
        scores.append(
            f"{where}: tp {as_int(s.get('tp'))}, fp {as_int(s.get('fp'))}, "
            f"fn {as_int(s.get('fn'))} (F1 {pct(opt_float(s.get('f1')), 100)})"
        )
        unmatched_pred += [f"{where}: {c}" for c in str_list(s.get("unmatched_predicted"))]
        unmatched_gold += [f"{where}: {c}" for c in str_list(s.get("unmatched_gold"))]
    facts = [("logic form", f"F1 {pct(f1, 100)} (tp {tp}, fp {fp}, fn {fn})")]
    if planner:
        seconds = opt_float(result.get("planning_seconds"))
        facts.append(
            (
                "planner",
                f"{planner}"
                + (f" in {seconds:.2f} s" if seconds is not None else "")
                + (f"; plan valid under gold: {'yes' if valid else 'no'}" if found else ""),
            )
        )
    plan = str_list(result.get("plan"))
    step_lists: tuple[StepList, ...] = ()
    if plan:
        steps = tuple(Step(i, p, STEP_OK if valid else STEP_WARN) for i, p in enumerate(plan, 1))
        step_lists = (StepList("Plan found with the predicted operators", steps),)
    issues = tuple(
        f"{as_str(as_dict(i).get('operator'))}: {as_str(as_dict(i).get('kind'))} — "
        f"{as_str(as_dict(i).get('message'))}"
        for i in as_list(result.get("issues"))
    )
    return TaskOutcome(
        status=OK if ok else FAIL,
        badge=badge,
        first_error=error,
        step_lists=step_lists,
        facts=tuple(facts),
        lists=named_lists(
            ("Hallucinated operators", hallucinated),
            ("Missing operators", missing),
            ("Clause scores per operator", tuple(scores)),
            ("Predicted clauses not in the gold", tuple(unmatched_pred)),
            ("Gold clauses not predicted", tuple(unmatched_gold)),
            ("Operator checks", issues),
            ("Z3 comparison with the gold operators", _verdict_lines(result)),
            ("Categories", str_list(result.get("categories"))),
        ),
    )


def compare_domains(result: Mapping[str, Any]) -> TaskOutcome:
    """One operator of ``planproof compare-domains``: its verdict, the findings (the
    first as the error), each with its counterexample state."""
    verdict = as_str(result.get("verdict")) or "unknown"
    issues = []
    states = []
    for raw in as_list(result.get("findings")):
        f = as_dict(raw)
        kind, literal = as_str(f.get("kind")), as_str(f.get("literal"))
        issues.append(Issue(kind, as_str(f.get("message")), unmet=(literal,) if literal else ()))
        state = str_list(f.get("counterexample"))
        if state:
            states.append(f"{kind} {literal}: " + " ".join(state))
    pairs = [" = ".join(map(as_str, as_list(p))) for p in as_list(result.get("parameters"))]
    return TaskOutcome(
        status=OK if verdict == "equivalent" else FAIL,
        badge="✓" if verdict == "equivalent" else verdict,
        first_error=issues[0] if issues else None,
        warnings=tuple(issues[1:]),
        facts=(("verdict", verdict), ("candidate", as_str(result.get("candidate")) or "—")),
        lists=named_lists(
            ("Counterexample states (true atoms)", tuple(states)),
            ("Parameters (reference = candidate)", tuple(pairs)),
        ),
    )


def generic(result: Mapping[str, Any]) -> TaskOutcome:
    """A module this report does not know: its scalar fields as facts."""
    facts = tuple(
        (k, as_str(v))
        for k, v in result.items()
        if k != "identifier" and isinstance(v, str | int | float | bool)
    )
    ok = result.get("success")
    return TaskOutcome(
        status=OK if ok is True else FAIL,
        badge="✓" if ok is True else "see details",
        facts=facts,
    )


READERS: dict[str, Callable[[Mapping[str, Any]], TaskOutcome]] = {
    "action-sequencing": action_sequencing,
    "subgoal-decomposition": subgoal_decomposition,
    "goal-interpretation": goal_interpretation,
    "transition-modeling": transition_modeling,
    "compare-domains": compare_domains,
}


def task_outcome(
    module: str,
    result: Mapping[str, Any] | None,
    response: ResponseRecord | None,
    reader: Callable[[Mapping[str, Any]], TaskOutcome] | None = None,
) -> TaskOutcome:
    """The outcome of one task: from its result (read by ``reader``, else the module's
    reader) when evaluated; otherwise the failed call, or a pending note."""
    if response is not None and response.error is not None and result is None:
        err = response.error
        return TaskOutcome(ERROR, "call failed", Issue(f"call failed: {err.kind}", err.message))
    if result is None:
        return TaskOutcome(
            PENDING,
            "not evaluated",
            Issue("not evaluated", "no result for this task in results.jsonl"),
        )
    out = (reader or READERS.get(module, generic))(result)
    reading = as_dict(result.get("reference_reading"))
    if reading:  # reproduce eai's published models: the reference reading of the same task
        more = tuple((f"reference reading: {k}", as_str(v)) for k, v in reading.items() if v)
        out = replace(out, facts=(*out.facts, *more))
    if response is not None and response.error is not None:
        err = response.error
        extra = Issue(f"call failed: {err.kind}", err.message)
        return TaskOutcome(
            ERROR,
            "call failed",
            extra,
            out.warnings,
            out.step_lists,
            out.facts,
            out.lists,
        )
    return out
