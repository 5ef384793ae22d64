"""The transition-modeling evaluation (EAI §2.4, §4) over LLM answers.

For every answered task the LLM's operators are read tolerantly and scored against the
gold operators of that task by logic-form matching (clause precision / recall / F1, per
operator and per predicate category); then the gold domain, with the task's operators
replaced by the predicted ones, is handed to a planner from the task's initial state to
its goal, and a plan found is replayed under the *gold* operators. The two rates differ:
a wrong model can yield a plan that does not work in the real one. Every predicted
operator also gets the static checks of :mod:`planproof.pddl.checks`.

Counting unit: a top-level clause. A clause counts toward every category of the
predicates it mentions; ``overall`` counts each clause once.
"""

from __future__ import annotations

import dataclasses
import functools
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from planproof.executor import Executor, Outcome, SerialExecutor
from planproof.ltl.bddl.sexpr import SExpr, sexpr_to_text
from planproof.pddl.checks import Issue, operator_issues
from planproof.pddl.compare.model import OperatorComparison
from planproof.pddl.eai import CATEGORIES, EaiPddl
from planproof.pddl.errors import PDDLSyntaxError
from planproof.pddl.logic_form import match_clauses, parameter_rename, predicates_of, prf
from planproof.pddl.planners import plan
from planproof.pddl.reader import Problem, declare_missing_objects
from planproof.pddl.schema import Domain, Operator
from planproof.pddl.tolerant import ParsedOperator, read_operators

Counts = list[int]  # [tp, fp, fn]


@dataclass
class _Tally:
    by_category: dict[str, Counts] = field(default_factory=lambda: defaultdict(lambda: [0, 0, 0]))
    overall: Counts = field(default_factory=lambda: [0, 0, 0])

    def add(self, clauses: Iterable[SExpr], slot: int, cats: Mapping[str, str]) -> None:
        for c in clauses:
            self.overall[slot] += 1
            for cat in {cats.get(p, "unknown") for p in predicates_of(c)} or {"unknown"}:
                self.by_category[cat][slot] += 1


@dataclass(frozen=True)
class OperatorScore:
    task: str
    name: str
    part: str  # "precondition" | "effect"
    tp: int
    fp: int
    fn: int
    unmatched_predicted: tuple[str, ...]
    unmatched_gold: tuple[str, ...]

    @property
    def f1(self) -> float:
        if self.tp + self.fp + self.fn == 0:
            return 1.0
        return prf(self.tp, self.fp, self.fn)[2]


@dataclass(frozen=True)
class TaskResult:
    identifier: str
    categories: tuple[str, ...]
    format_error: str = ""
    hallucinated: tuple[str, ...] = ()
    missing: tuple[str, ...] = ()
    scores: tuple[OperatorScore, ...] = ()
    planner_status: str = ""
    planner_reason: str = ""
    planner_found: bool = False
    plan: tuple[str, ...] = ()
    plan_valid_under_gold: bool = False
    gold_failure: str = ""
    issues: tuple[Issue, ...] = ()
    planning_seconds: float = 0.0
    planner_cached: bool = False
    """The planner's verdict came from the persistent cache (:mod:`planproof.pddl.plan_cache`)."""
    category_counts: Mapping[str, Mapping[str, tuple[int, int, int]]] = field(default_factory=dict)
    """part ("precondition" / "effect") → category → (tp, fp, fn)"""
    verdicts: tuple[OperatorComparison, ...] = ()
    """Per predicted operator, its Z3 comparison with the gold one (``compare=True``):
    the engine of ``planproof compare-domains``."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "identifier": self.identifier,
            "categories": list(self.categories),
            "format_error": self.format_error or None,
            "hallucinated": list(self.hallucinated),
            "missing": list(self.missing),
            "scores": [dataclasses.asdict(s) | {"f1": round(s.f1, 4)} for s in self.scores],
            "planner_status": self.planner_status,
            "planner_reason": self.planner_reason,
            "planner_found": self.planner_found,
            "plan": list(self.plan),
            "plan_valid_under_gold": self.plan_valid_under_gold,
            "gold_failure": self.gold_failure or None,
            "issues": [i.to_dict() for i in self.issues],
            "planning_seconds": round(self.planning_seconds, 3),
            "planner_cached": self.planner_cached,
            "category_counts": {
                k: {c: list(v) for c, v in d.items()} for k, d in self.category_counts.items()
            },
            "verdicts": [v.to_dict() for v in self.verdicts],
        }


def _prf_dict(c: Counts) -> dict[str, float | int]:
    p, r, f = prf(*c)
    return {"tp": c[0], "fp": c[1], "fn": c[2], "precision": p, "recall": r, "f1": f}


def planner_rates(tasks: Sequence[TaskResult]) -> dict[str, dict[str, float | int]]:
    """Planner success per category (``planner_found``, ``plan_valid_under_gold``: fractions
    of the category's tasks)."""
    out: dict[str, dict[str, float | int]] = {}
    for cat in CATEGORIES:
        ts = [t for t in tasks if cat in t.categories]
        if ts:
            found = [t for t in ts if t.planner_found]
            out[cat] = {
                "tasks": len(ts),
                "planner_found": len(found) / len(ts),
                "plan_valid_under_gold": sum(t.plan_valid_under_gold for t in found) / len(ts),
            }
    return out


@dataclass(frozen=True)
class Report:
    dataset: str
    tasks: tuple[TaskResult, ...]
    skipped: tuple[str, ...]
    predicate_categories: Mapping[str, str]

    def summary(self) -> dict[str, Any]:
        parts: dict[str, dict[str, Counts]] = {
            "precondition": defaultdict(lambda: [0, 0, 0]),
            "effect": defaultdict(lambda: [0, 0, 0]),
        }
        overall: dict[str, Counts] = {"precondition": [0, 0, 0], "effect": [0, 0, 0]}
        per_op: dict[str, Counts] = defaultdict(lambda: [0, 0, 0])
        for t in self.tasks:
            for s in t.scores:
                for k, v in enumerate((s.tp, s.fp, s.fn)):
                    per_op[s.name][k] += v
                    overall[s.part][k] += v
            for part, by_cat in t.category_counts.items():
                for cat, c in by_cat.items():
                    for k in range(3):
                        parts[part][cat][k] += c[k]
        full = [overall["precondition"][k] + overall["effect"][k] for k in range(3)]
        full_cat = {
            cat: [parts["precondition"][cat][k] + parts["effect"][cat][k] for k in range(3)]
            for cat in set(parts["precondition"]) | set(parts["effect"])
        }
        n = len(self.tasks)
        found = sum(t.planner_found for t in self.tasks)
        valid = sum(t.plan_valid_under_gold for t in self.tasks)
        by_cat_sr = planner_rates(self.tasks)
        issues = Counter(i.kind for t in self.tasks for i in t.issues)
        verdicts = Counter(v.verdict.value for t in self.tasks for v in t.verdicts)
        return {
            "dataset": self.dataset,
            "tasks": n,
            "skipped": len(self.skipped),
            "format_errors": sum(bool(t.format_error) for t in self.tasks),
            "hallucinated_operators": sum(len(t.hallucinated) for t in self.tasks),
            "overall": _prf_dict(full),
            "precondition": _prf_dict(overall["precondition"]),
            "effect": _prf_dict(overall["effect"]),
            "by_category": {c: _prf_dict(full_cat[c]) for c in CATEGORIES if c in full_cat},
            "by_category_precondition": {
                c: _prf_dict(parts["precondition"][c])
                for c in CATEGORIES
                if c in parts["precondition"]
            },
            "by_category_effect": {
                c: _prf_dict(parts["effect"][c]) for c in CATEGORIES if c in parts["effect"]
            },
            "by_operator": {k: _prf_dict(v) for k, v in sorted(per_op.items())},
            "planner_found": found / n if n else None,
            "plan_valid_under_gold": valid / n if n else None,
            "planner_by_category": by_cat_sr,
            "planner_cache_hits": sum(t.planner_cached for t in self.tasks),
            "planner_budget_spent": sum(t.planner_status == "budget" for t in self.tasks),
            "planner_timeouts": sum(t.planner_status == "timeout" for t in self.tasks),
            "issues": dict(sorted(issues.items())),
            **({"operator_verdicts": dict(sorted(verdicts.items()))} if verdicts else {}),
        }


def _rename(pred: ParsedOperator, gold: Operator) -> dict[str, str]:
    if pred.parameters is None:
        return {}
    return parameter_rename(
        ["?" + p.name for p in pred.parameters], ["?" + p.name for p in gold.params]
    )


def _gold_sexprs(data: EaiPddl, name: str) -> tuple[SExpr, SExpr]:
    g = data.gold_operators[name]
    return _read_gold(g.precondition), _read_gold(g.effect)


@functools.lru_cache(maxsize=4096)
def _read_gold(text: str) -> SExpr:
    """A gold operator's part, read once per process (every answer to a task is scored
    against the same few gold operators)."""
    from planproof.ltl.bddl.reader import read_sexpr

    return read_sexpr(text)


def evaluate_task(
    data: EaiPddl,
    identifier: str,
    answer: str,
    *,
    engine: str = "fast-downward",
    timeout: float = 60.0,
    run_planner: bool = True,
    axioms: Callable[..., Any] | None = None,
    check_cache: dict[Operator, tuple[Issue, ...]] | None = None,
    plan_cache: bool = True,
    compare: bool = False,
    max_expansions: int | None = None,
    cpu_budget: float | None = None,
) -> TaskResult:
    """Score one LLM answer for one task (see the module docstring). ``check_cache``
    memoises the operator checks across tasks (the same operator recurs in many); by
    default they are kept with ``data`` (:attr:`~planproof.pddl.eai.EaiPddl.operator_checks`).
    With ``compare`` every predicted operator is also compared with its gold one by
    :func:`~planproof.pddl.compare.operators.compare_operators` (equivalent, stronger,
    weaker, incomparable, with the literal to blame)."""
    cats = data.task_categories.get(identifier, ())
    gold_names = data.task_actions[identifier]
    gold_ops = data.domain.operators
    try:
        predicted = _read_answer(data, identifier, answer)
    except PDDLSyntaxError as exc:
        return TaskResult(identifier, cats, format_error=str(exc), missing=tuple(gold_names))
    scores: list[OperatorScore] = []
    tallies = {"precondition": _Tally(), "effect": _Tally()}
    names = _task_names(data, identifier)
    hallucinated = tuple(p.name for k, p in predicted.items() if k not in names)
    missing = tuple(n for n in gold_names if n.lower() not in predicted)
    for key, name in names.items():
        gpre, geff = _gold_sexprs(data, name)
        p = predicted.get(key)
        rename = _rename(p, gold_ops[name]) if p is not None else {}
        for part, pe, ge in (
            ("precondition", p.precondition if p else None, gpre),
            ("effect", p.effect if p else None, geff),
        ):
            m = match_clauses(pe, ge, predicted_rename=rename)
            tally = tallies[part]
            tally.add(m.matched, 0, data.predicate_categories)
            tally.add(m.unmatched_predicted, 1, data.predicate_categories)
            tally.add(m.unmatched_gold, 2, data.predicate_categories)
            scores.append(
                OperatorScore(
                    identifier,
                    name,
                    part,
                    m.tp,
                    m.fp,
                    m.fn,
                    tuple(sexpr_to_text(c) for c in m.unmatched_predicted),
                    tuple(sexpr_to_text(c) for c in m.unmatched_gold),
                )
            )
    issues: list[Issue] = []
    for p in predicted.values():
        if p.unknown_variables:
            issues.append(
                Issue(
                    p.name,
                    "unknown-variable",
                    "not a parameter: " + ", ".join("?" + v for v in p.unknown_variables),
                )
            )
        if p.operator is not None:
            cache = (
                check_cache
                if check_cache is not None
                else data.operator_checks.setdefault(axioms, {})
            )
            if p.operator not in cache:
                cache[p.operator] = tuple(operator_issues(p.operator, data.domain, axioms=axioms))
            issues.extend(cache[p.operator])
    verdicts: list[OperatorComparison] = []
    if compare:
        from planproof.pddl.compare.operators import Context, compare_operators

        ctx = Context(data.domain, axioms=axioms)
        for key, name in names.items():
            p = predicted.get(key)
            if p is not None and p.operator is not None:
                verdicts.append(compare_operators(gold_ops[name], p.operator, ctx))
    result = TaskResult(
        identifier,
        cats,
        verdicts=tuple(verdicts),
        hallucinated=hallucinated,
        missing=missing,
        scores=tuple(scores),
        issues=tuple(issues),
        category_counts={
            part: {c: (v[0], v[1], v[2]) for c, v in t.by_category.items()}
            for part, t in tallies.items()
        },
    )
    if run_planner:
        result = _plan(
            data,
            result=result,
            predicted=predicted,
            names=names,
            engine=engine,
            timeout=timeout,
            use_cache=plan_cache,
            max_expansions=max_expansions,
            cpu_budget=cpu_budget,
        )
    return result


def _model(
    gold: Domain, predicted: Mapping[str, ParsedOperator], names: Mapping[str, str]
) -> tuple[Domain | None, str]:
    """The gold domain with the task's operators replaced by the predicted ones (a task
    operator the LLM did not write keeps its gold version, as in the reference)."""
    ops = dict(gold.operators)
    for key, name in names.items():
        p = predicted.get(key)
        if p is None:
            continue
        if p.operator is None:
            return None, f"operator {name} unusable: {'; '.join(p.problems)}"
        ops[name] = dataclasses.replace(p.operator, name=name)
    try:
        return dataclasses.replace(gold, operators=ops), ""
    except ValueError as exc:
        return None, str(exc)


def planned_model(data: EaiPddl, identifier: str, answer: str) -> tuple[Domain, Problem] | None:
    """The domain and problem planproof's reading plans for ``answer`` (as :func:`_plan`
    builds them); None when the answer gives no usable model."""
    try:
        predicted = _read_answer(data, identifier, answer)
    except PDDLSyntaxError:
        return None
    model, _why = _model(data.domain, predicted, _task_names(data, identifier))
    if model is None:
        return None
    return model, _problem(data, identifier)


def exported_task(data: EaiPddl, identifier: str, answer: str) -> tuple[str, str] | None:
    """The domain and problem text Fast Downward is given for ``answer`` in planproof's
    reading (as :func:`_plan` exports them); None when the answer gives no usable model."""
    from planproof.pddl.planners import export_for_planner

    planned = planned_model(data, identifier, answer)
    if planned is None:
        return None
    domain_text, problem_text, _names = export_for_planner(*planned)
    return domain_text, problem_text


def _read_answer(data: EaiPddl, identifier: str, answer: str) -> dict[str, ParsedOperator]:
    """The answer's operators, read with the task's gold parameters (raises
    :class:`PDDLSyntaxError`)."""
    gold_names = data.task_actions[identifier]
    params = {n.lower(): data.gold_operators[n].parameters for n in gold_names}
    return read_operators(answer, parameters=params)


def _task_names(data: EaiPddl, identifier: str) -> dict[str, str]:
    """The task's gold operator names by their lower-case key (how answers are matched)."""
    return {n.lower(): n for n in data.task_actions[identifier]}


def _problem(data: EaiPddl, identifier: str) -> Problem:
    """The task's problem as it is planned: every object the domain names declared."""
    return declare_missing_objects(data.domain, data.problem(identifier))


def _plan(
    data: EaiPddl,
    *,
    result: TaskResult,
    predicted: Mapping[str, ParsedOperator],
    names: Mapping[str, str],
    engine: str,
    timeout: float,
    use_cache: bool = True,
    max_expansions: int | None = None,
    cpu_budget: float | None = None,
) -> TaskResult:
    from planproof.metrics.transition_modeling.replay import check_plan, pddl_task, to_actions
    from planproof.pddl.plan_cache import cached_plan

    model, why = _model(data.domain, predicted, names)
    if model is None:
        return dataclasses.replace(result, planner_status="unusable-model", planner_reason=why)
    problem = _problem(data, result.identifier)
    limits: dict[str, Any] = {
        "engine": engine,
        "timeout": timeout,
        "max_expansions": max_expansions,
        "cpu_budget": cpu_budget,
    }
    if use_cache:
        res, cached = cached_plan(model, problem, **limits)
    else:
        res, cached = plan(model, problem, **limits), False
    if not res.solved:
        return dataclasses.replace(
            result,
            planner_status=res.status.value,
            planner_reason=res.reason,
            planning_seconds=res.seconds,
            planner_cached=cached,
        )
    check = check_plan(pddl_task(data.domain, problem), to_actions(res.plan))
    err = check.replay.first_error
    failure = (
        ""
        if check.valid
        else (err.message if err else "goal unmet: " + ", ".join(check.unmet_goal))
    )
    return dataclasses.replace(
        result,
        planner_status=res.status.value,
        planner_found=True,
        plan=tuple(res.plan_lines()),
        plan_valid_under_gold=check.valid,
        gold_failure=failure,
        planning_seconds=res.seconds,
        planner_cached=cached,
    )


@dataclass(frozen=True)
class Job:
    """One answer to score, as sent to a worker: the dataset by name (each worker loads
    it once, :func:`~planproof.pddl.eai.load_eai_pddl` is memoised), not the data."""

    dataset: str
    identifier: str
    answer: str
    engine: str = "fast-downward"
    timeout: float = 60.0
    run_planner: bool = True
    plan_cache: bool = True
    compare: bool = False
    max_expansions: int | None = None
    cpu_budget: float | None = None


def evaluate_job(job: Job) -> TaskResult:
    """:func:`evaluate_task` in a worker process."""
    from planproof.ltl.axioms import NAMED_AXIOMS
    from planproof.pddl.eai import load_eai_pddl

    return evaluate_task(
        load_eai_pddl(job.dataset),
        job.identifier,
        job.answer,
        engine=job.engine,
        timeout=job.timeout,
        run_planner=job.run_planner,
        axioms=NAMED_AXIOMS.get(job.dataset),
        plan_cache=job.plan_cache,
        compare=job.compare,
        max_expansions=job.max_expansions,
        cpu_budget=job.cpu_budget,
    )


def evaluate_responses(
    data: EaiPddl,
    responses: Sequence[Mapping[str, Any]],
    *,
    engine: str = "fast-downward",
    timeout: float = 60.0,
    run_planner: bool = True,
    progress: Callable[[int, int], None] | None = None,
    executor: Executor | None = None,
    plan_cache: bool = True,
    compare: bool = False,
    max_expansions: int | None = None,
    cpu_budget: float | None = None,
) -> Report:
    """Evaluate answers ``[{"identifier": ..., "llm_output": ...}, ...]``; answers for
    tasks outside the evaluated set (``success_task.json``) are skipped, as in the paper.

    With an ``executor`` of more than one worker the answers are scored (and planned) in
    its workers, which read the dataset from the cache themselves, so ``data`` must be the
    cached :func:`~planproof.pddl.eai.load_eai_pddl` one; other data is scored here. A
    task whose worker died twice is reported as a ``worker-died`` planner status."""
    from planproof.ltl.axioms import NAMED_AXIOMS
    from planproof.pddl.eai import load_eai_pddl

    axioms = NAMED_AXIOMS.get(data.dataset)
    wanted = set(data.solved)
    jobs: list[Job] = []
    skipped: list[str] = []
    for r in responses:
        ident = str(r.get("identifier", ""))
        if ident not in wanted or ident not in data.task_actions:
            skipped.append(ident)
            continue
        answer = r.get("llm_output", r.get("output", ""))
        jobs.append(
            Job(
                data.dataset,
                ident,
                answer if isinstance(answer, str) else str(answer),
                engine,
                timeout,
                run_planner,
                plan_cache,
                compare,
                max_expansions,
                cpu_budget,
            )
        )
    done = 0

    def tick(_index: int, _outcome: Outcome[TaskResult]) -> None:
        nonlocal done
        done += 1
        if progress:
            progress(done, len(jobs))

    if executor is not None and executor.workers > 1 and data is load_eai_pddl(data.dataset):
        outcomes = executor.map(evaluate_job, jobs, on_done=tick)
    else:

        def here(job: Job) -> TaskResult:
            return evaluate_task(
                data,
                job.identifier,
                job.answer,
                engine=job.engine,
                timeout=job.timeout,
                run_planner=job.run_planner,
                axioms=axioms,
                plan_cache=job.plan_cache,
                compare=job.compare,
                max_expansions=job.max_expansions,
                cpu_budget=job.cpu_budget,
            )

        outcomes = SerialExecutor().map(here, jobs, on_done=tick)
    results = [
        o.value
        if o.value is not None
        else TaskResult(
            j.identifier,
            data.task_categories.get(j.identifier, ()),
            planner_status=o.failure.kind if o.failure else "error",
            planner_reason=o.failure.message if o.failure else "",
        )
        for j, o in zip(jobs, outcomes, strict=True)
    ]
    return Report(data.dataset, tuple(results), tuple(skipped), data.predicate_categories)
