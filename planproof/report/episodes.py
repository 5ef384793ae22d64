"""How the page shows the episode benchmarks (TEACh, Housekeep, PARTNR): their metric
columns, their charts and one drill-down per episode (or, for PARTNR, per plan).

The columns are the papers' metrics as the ``evaluate`` commands summarise them
(fractions there, percentages here): TEACh success rate, goal-condition rate and their
trajectory-length-weighted forms; Housekeep's tidy-house metrics as mean ± standard
error; PARTNR success, percent complete and the plans each evaluation function failed.
The records read are those :mod:`planproof.report.episode_dirs` loaded, defensively.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from planproof.report.episode_dirs import HOUSEKEEP, PARTNR, TEACH
from planproof.report.load import as_bool, as_dict, as_int, as_list, as_str, opt_float, str_list
from planproof.report.outcome import (
    ERROR,
    FAIL,
    OK,
    STEP_FAIL,
    STEP_OK,
    STEP_SKIP,
    STEP_WARN,
    Issue,
    Step,
    StepList,
    TaskOutcome,
    named_lists,
    pct,
    read_issue,
    replay_trace,
)
from planproof.report.tables import HIGH, LOW, Column

TITLES = {TEACH: "TEACh", HOUSEKEEP: "Housekeep", PARTNR: "PARTNR"}
MAX_DYNAMIC = 12
"""Most columns (and chart bars) made from a summary's own keys (task names, failure
kinds): a hand-edited summary cannot make the table unreadable."""

ChartSpec = tuple[str, list[tuple[str, Column]], float | None]


def _percent(value: object) -> str:
    """A fraction as ``83.3 %``; a dash (without a unit) when it is not a number."""
    f = opt_float(value)
    return "—" if f is None else f"{pct(f, 100)} %"


def _pc(group: str, label: str, *path: str, better: str | None = HIGH, tip: str = "") -> Column:
    """A fraction in the summary, a percentage on the page."""
    return Column(group, label, path, better, scale=100, tip=tip)


def _count(group: str, label: str, *path: str) -> Column:
    """A count of episodes or plans: never bold, since runs over different episodes have
    different totals (the rates carry the comparison)."""
    return Column(group, label, path, None, count=True, zero_if_absent=True)


_TEACH = "TEACh metrics (%)"
TEACH_COLUMNS = (
    _count("Episodes", "Scored", "overall", "episodes"),
    _pc(_TEACH, "SR", "overall", "success_rate", tip="success rate"),
    _pc(_TEACH, "GC", "overall", "gc_macro", tip="goal-condition success, mean over episodes"),
    _pc(
        _TEACH,
        "GC pooled",
        "overall",
        "gc_pooled",
        tip="conditions completed over conditions needed, all episodes pooled",
    ),
    _pc(
        _TEACH,
        "TLW-SR",
        "overall",
        "tlw_success_weighted",
        tip="trajectory-length-weighted success, weighted by reference length",
    ),
    _pc(
        _TEACH,
        "TLW-GC",
        "overall",
        "tlw_gc_weighted",
        tip="trajectory-length-weighted goal-condition success, weighted by reference length",
    ),
)

TEACH_REFERENCE_COLUMNS = (
    _pc(
        "The reference's count (%)",
        "GC",
        "reference_reading",
        "gc_macro",
        tip="goal-condition success as TEACh's checker counts it (its whole-object quirk)",
    ),
    _count(
        "The reference's count (%)", "Episodes apart", "reference_reading", "episodes_differing"
    ),
)
"""Shown only when some episode's GC differs in the reference's reading."""

HOUSEKEEP_METRICS = (
    ("episode_success", "ES", "episode success"),
    ("object_success", "OS", "object success"),
    ("soft_object_success", "SOS", "soft object success"),
    ("rearrangement_quality", "RQ", "rearrangement quality"),
    ("pick_place_efficiency", "PPE", "pick-and-place efficiency"),
    ("misplaced_found", "MOF", "misplaced objects found"),
    ("map_coverage", "MC", "map coverage"),
)
_TIDY = "Tidy-house metrics (mean %, ± s.e.)"
HOUSEKEEP_COLUMNS = (
    _count("Episodes", "Scored", "evaluated"),
    _count("Episodes", "Bad input", "bad_input"),
    *(
        Column(
            _TIDY,
            label,
            ("metrics", key, "mean"),
            scale=100,
            tip=tip,
            spread=("metrics", key, "stderr"),
        )
        for key, label, tip in HOUSEKEEP_METRICS
    ),
    _count("Checks (episodes)", "Executable", "executable"),
    _count("Checks (episodes)", "Unsat. goal", "unsatisfiable_goals"),
    _count("Checks (episodes)", "≠ expected", "expectation_mismatches"),
)
_REF = "The reference's reading: end_matrix (mean %)"
HOUSEKEEP_REFERENCE_COLUMNS = (
    *(
        Column(_REF, label, ("reference_reading", "metrics", key, "mean"), scale=100, tip=tip)
        for key, label, tip in HOUSEKEEP_METRICS[:6]
    ),
    _count(_REF, "Episodes apart", "reference_reading", "episodes_differing"),
    _count(_REF, "Objects apart", "reference_reading", "objects_differing"),
)
"""Shown only when a run read the reference's own episode files (they carry its
verdicts); the readings part where its generator matched categories by substring."""

_PARTNR = "PARTNR metrics (%)"
PARTNR_COLUMNS = (
    _count("Plans", "Scored", "plans"),
    _pc(_PARTNR, "Success", "success_rate"),
    _pc(_PARTNR, "PC", "percent_complete", tip="percent complete"),
    _pc(_PARTNR, "Executable", "executable_rate"),
    _pc(_PARTNR, "Offloading", "task_offloading", better=None, tip="over successful plans"),
    _pc(_PARTNR, "Extraneous", "extraneous_effort", better=LOW, tip="over successful plans"),
    Column("Means", "Steps", ("steps",), None),
    Column("Means", "Cycles", ("planning_cycles",), None, tip="planning cycles"),
)


def _keys(summaries: Sequence[Mapping[str, Any]], *path: str) -> list[str]:
    """The keys of the dictionary at ``path`` in any summary, in first-seen order."""
    seen: dict[str, None] = {}
    for s in summaries:
        doc: object = s
        for key in path:
            doc = as_dict(doc).get(key)
        for k in as_dict(doc):
            seen.setdefault(k, None)
    return list(seen)[:MAX_DYNAMIC]


def _partnr_counts(summaries: Sequence[Mapping[str, Any]], key: str, group: str) -> list[Column]:
    return [_count(group, k.replace("_", " "), key, k) for k in _keys(summaries, key)]


def columns(benchmark: str, summaries: Sequence[Mapping[str, Any]]) -> tuple[Column, ...]:
    """The table's columns for ``benchmark`` (PARTNR's failure kinds as found)."""
    if benchmark == TEACH:
        if any(as_dict(s.get("reference_reading")) for s in summaries):
            return (*TEACH_COLUMNS, *TEACH_REFERENCE_COLUMNS)
        return TEACH_COLUMNS
    if benchmark == HOUSEKEEP:
        if any(as_dict(s.get("reference_reading")) for s in summaries):
            return (*HOUSEKEEP_COLUMNS, *HOUSEKEEP_REFERENCE_COLUMNS)
        return HOUSEKEEP_COLUMNS
    return (
        *PARTNR_COLUMNS,
        *_partnr_counts(summaries, "failures", "Evaluation failures (plans)"),
        *_partnr_counts(summaries, "errors", "First execution error (plans)"),
    )


def chart_specs(benchmark: str, summaries: Sequence[Mapping[str, Any]]) -> list[ChartSpec]:
    """(title, [(category, column)], axis maximum) per chart."""
    if benchmark == TEACH:
        tasks = _keys(summaries, "by_task")
        return [
            ("TEACh metrics (%)", [(c.label, c) for c in TEACH_COLUMNS[1:]], 100.0),
            (
                "Success rate by task (%)",
                [(t, _pc("", t, "by_task", t, "success_rate")) for t in tasks],
                100.0,
            ),
            (
                "Goal-condition rate by task (%)",
                [(t, _pc("", t, "by_task", t, "gc_macro")) for t in tasks],
                100.0,
            ),
        ]
    if benchmark == HOUSEKEEP:
        return [
            ("Tidy-house metrics (mean %)", [(c.tip, c) for c in HOUSEKEEP_COLUMNS[2:9]], 100.0)
        ]
    return [
        ("PARTNR metrics (%)", [(c.label, c) for c in PARTNR_COLUMNS[1:4]], 100.0),
        (
            "Evaluation failures (plans)",
            [(c.label, c) for c in _partnr_counts(summaries, "failures", "")],
            None,
        ),
        (
            "First execution error (plans)",
            [(c.label, c) for c in _partnr_counts(summaries, "errors", "")],
            None,
        ),
    ]


# --- one episode ---------------------------------------------------------------------------


def _steps_with_issues(
    actions: tuple[str, ...], taken: int, failures: Sequence[Issue], warnings: Sequence[Issue]
) -> StepList:
    """TEACh goes on after a failed action: every failed step is marked, not only the
    first; steps after the episode stopped are struck through."""
    failed = {f.step: f.kind for f in failures if f.step is not None}
    warned = {w.step: w.kind for w in warnings if w.step is not None}
    steps = []
    for i, text in enumerate(actions, start=1):
        if i in failed:
            steps.append(Step(i, text, STEP_FAIL, failed[i].replace("_", " ")))
        elif i in warned:
            steps.append(Step(i, text, STEP_WARN, warned[i].replace("_", " ")))
        elif i > taken:
            steps.append(Step(i, text, STEP_SKIP, "not run"))
        else:
            steps.append(Step(i, text, STEP_OK))
    return StepList("Actions, replayed", tuple(steps))


def _issues(value: object) -> tuple[Issue, ...]:
    return tuple(i for i in (read_issue(x) for x in as_list(value)) if i is not None)


def _issue_text(i: Issue) -> str:
    where = f"step {i.step} " if i.step is not None else ""
    return f"{where}{i.action or ''} — {i.kind.replace('_', ' ')}: {i.message}".strip()


def teach(result: Mapping[str, Any]) -> TaskOutcome:
    metrics = as_dict(result.get("metrics"))
    final = as_dict(result.get("final"))
    initial = as_dict(result.get("initial"))
    success = as_bool(metrics.get("success"))
    failures = _issues(result.get("failures"))
    warnings = _issues(result.get("warnings"))
    first = failures[0] if failures else None
    gc = opt_float(metrics.get("gc"))
    if success:
        badge = "✓"
    elif first is not None:
        badge = first.kind.replace("_", " ")
    else:
        badge = f"GC {pct(gc, 100)}"
    taken = as_int(result.get("steps"))
    facts = [
        ("success", "yes" if success else "no"),
        (
            "goal conditions",
            f"{as_int(final.get('gc_satisfied'))} of {as_int(final.get('gc_total'))} met at "
            f"the end ({as_int(initial.get('gc_satisfied'))} at the start)",
        ),
        ("GC", _percent(gc)),
    ]
    theirs = as_dict(result.get("reference_reading"))
    if theirs:  # only where the reference's checker counts otherwise
        facts.append(
            (
                "GC, the reference's count",
                f"{_percent(theirs.get('gc'))} (TEACh's whole-object quirk: "
                f"{as_int(final.get('gc_satisfied_reference'))} of "
                f"{as_int(final.get('gc_total'))} met at the end, "
                f"{as_int(initial.get('gc_satisfied_reference'))} at the start)",
            )
        )
    facts += [
        ("TLW-SR", _percent(metrics.get("tlw_success"))),
        ("TLW-GC", _percent(metrics.get("tlw_gc"))),
        (
            "steps",
            f"{taken} taken (reference {as_str(metrics.get('reference_length'), '—')}), "
            f"{as_int(result.get('interactions'))} interactions",
        ),
        ("stopped by", as_str(result.get("stopped_by"), "—")),
    ]
    actions = str_list(result.get("actions"))
    return TaskOutcome(
        status=OK if success else FAIL,
        badge=badge,
        first_error=first,
        warnings=warnings,
        step_lists=(_steps_with_issues(actions, taken, failures, warnings),) if actions else (),
        facts=tuple(facts),
        lists=named_lists(
            ("Unmet at the end", str_list(final.get("unsatisfied"))),
            ("Failed actions", tuple(_issue_text(f) for f in failures) if failures[1:] else ()),
            ("Unmet at the start", str_list(initial.get("unsatisfied"))),
        ),
    )


def housekeep(result: Mapping[str, Any]) -> TaskOutcome:
    if result.get("ok") is False:
        message = as_str(result.get("message"))
        kind = as_str(result.get("error"), "bad input").replace("-", " ")
        return TaskOutcome(ERROR, kind, Issue(kind, message))
    metrics = as_dict(result.get("metrics"))
    replay = as_dict(result.get("replay"))
    error = read_issue(replay.get("error"))
    warnings = list(_issues(replay.get("warnings")))
    mismatches = [
        f"{k}: expected {pct(opt_float(as_dict(v).get('expected')), 100)} %, "
        f"got {pct(opt_float(as_dict(v).get('got')), 100)} %"
        for k, v in as_dict(result.get("mismatches")).items()
    ]
    if mismatches:
        warnings.append(Issue("differs from expected", "; ".join(mismatches)))
    success = opt_float(metrics.get("episode_success")) == 1.0
    if success and not mismatches:
        badge = "✓"
    elif error is not None:
        badge = error.kind.replace("_", " ")
    elif mismatches:
        badge = "≠ expected"
    else:
        badge = f"RQ {pct(opt_float(metrics.get('rearrangement_quality')), 100)}"
    counts = as_dict(result.get("counts"))
    facts = [(tip, _percent(metrics.get(key))) for key, _, tip in HOUSEKEEP_METRICS]
    facts.append(
        (
            "objects",
            f"{as_int(counts.get('misplaced'))} of {as_int(counts.get('objects'))} misplaced "
            f"at the start, {as_int(counts.get('interacted'))} moved; "
            f"{as_int(counts.get('picks_places'))} picks and places "
            f"(at least {as_int(counts.get('min_picks_places'))} needed)",
        )
    )
    goal = as_dict(result.get("goal"))
    if goal:
        verdict = (
            "unknown"
            if as_bool(goal.get("unknown"))
            else ("satisfiable" if as_bool(goal.get("satisfiable")) else "unsatisfiable")
        )
        facts.append(("goal (Z3)", verdict))
    oracle = as_dict(result.get("oracle"))
    if oracle:
        facts.append(
            (
                "oracle plan",
                f"RQ {pct(opt_float(oracle.get('rearrangement_quality')), 100)} %, "
                f"ES {pct(opt_float(oracle.get('episode_success')), 100)} % in "
                f"{len(as_list(oracle.get('actions')))} actions",
            )
        )
    reference = as_dict(result.get("reference_reading"))
    if reference:
        facts.append(("the reference's reading (end_matrix)", _reference_fact(reference)))
    if as_str(result.get("description")):
        facts.append(("source", as_str(result.get("description"))))
    untidy = tuple(
        f"{as_str(o.get('id'))}: {as_str(o.get('initial'))} → {as_str(o.get('final'))} "
        f"({as_str(o.get('status')).replace('_', ' ')})"
        for o in map(as_dict, as_list(result.get("objects")))
        if o.get("finally_correct") is False
    )
    actions = str_list(result.get("actions"))
    return TaskOutcome(
        status=OK if success and not mismatches else FAIL,
        badge=badge,
        first_error=error,
        warnings=tuple(warnings),
        step_lists=(
            replay_trace(
                "Actions, replayed", actions, as_int(replay.get("executed")), error, tuple(warnings)
            ),
        )
        if actions
        else (),
        facts=tuple(facts),
        lists=named_lists(
            ("Objects not in a correct place at the end", untidy),
            ("Goal check", str_list(goal.get("reasons"))),
            (
                "Correct only by the reference's substring rule",
                tuple(
                    f"{as_str(p[0])} on {as_str(p[1])} (matched as {as_str(p[3], '?')})"
                    for p in map(as_list, as_list(reference.get("disagreeing_pairs")))
                    if len(p) == 4
                ),
            ),
        ),
    )


def _reference_fact(reference: Mapping[str, Any]) -> str:
    """The reference reading's metrics, and which of them part from planproof's."""
    metrics = as_dict(reference.get("metrics"))
    values = ", ".join(
        f"{label} {_percent(metrics.get(key))}" for key, label, _ in HOUSEKEEP_METRICS[:6]
    )
    apart = str_list(reference.get("metrics_differ"))
    objects = str_list(reference.get("objects_differ"))
    if not apart:
        return f"{values}; the same as planproof's"
    return f"{values}; differs in {', '.join(apart)} (objects judged apart: {', '.join(objects)})"


def partnr(result: Mapping[str, Any]) -> TaskOutcome:
    success = as_bool(result.get("success"))
    pc = opt_float(result.get("percent_complete"))
    error = read_issue(result.get("error"))
    failures = [
        Issue(as_str(f.get("kind"), "failure").replace("_", " "), as_str(f.get("message")))
        for f in map(as_dict, as_list(result.get("failures")))
    ]
    first = error or (failures[0] if failures and not success else None)
    mismatch = str_list(result.get("expect_mismatch"))
    warnings = (Issue("differs from its expect block", "; ".join(mismatch)),) if mismatch else ()
    if success and not mismatch:
        badge = "✓"
    elif error is not None:
        badge = error.kind.replace("_", " ")
    elif mismatch and success:
        badge = "≠ expect"
    else:
        badge = f"PC {pct(pc, 100)}"
    facts = [
        ("success", "yes" if success else "no"),
        ("percent complete", _percent(pc)),
    ]
    ltl = opt_float(result.get("ltl_percent_complete"))
    if ltl is not None or as_str(result.get("ltl_note")):
        facts.append(("LTL view", f"{pct(ltl, 100)} % {as_str(result.get('ltl_note'))}".strip()))
    facts += [
        (
            "steps · planning cycles",
            f"{as_int(result.get('steps'))} · {as_int(result.get('planning_cycles'))}",
        ),
        ("task offloading", _percent(result.get("task_offloading"))),
        ("extraneous effort", _percent(result.get("extraneous_effort"))),
        ("executable", "yes" if as_bool(result.get("executable")) else "no"),
    ]
    step_lists = tuple(
        StepList(
            f"{agent}'s actions",
            tuple(Step(i, a, STEP_OK) for i, a in enumerate(str_list(acts), start=1)),
        )
        for agent, acts in as_dict(result.get("agents")).items()
    )
    said = {f.message for f in failures}  # the explanation's lines not already listed
    explanation = tuple(
        line.strip(" -")
        for line in as_str(result.get("explanation")).splitlines()[1:]
        if line.strip(" -") not in said
    )
    return TaskOutcome(
        status=OK if success and not mismatch else FAIL,
        badge=badge,
        first_error=first,
        warnings=warnings,
        step_lists=step_lists,
        facts=tuple(facts),
        lists=named_lists(
            ("Evaluation failures", tuple(f"{f.kind}: {f.message}" for f in failures)),
            ("Explanation (other lines)", tuple(e for e in explanation if e)),
        ),
    )


READERS: dict[str, Callable[[Mapping[str, Any]], TaskOutcome]] = {
    TEACH: teach,
    HOUSEKEEP: housekeep,
    PARTNR: partnr,
}
