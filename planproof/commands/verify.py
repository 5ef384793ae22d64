"""``planproof verify``: check plans against a PDDL domain and problem with VAL's
semantics (:mod:`planproof.pddl.validate`).

    planproof verify --domain D.pddl --problem P.pddl --plan PLAN [--plan PLAN2 ...]
    planproof verify --cases CASES.jsonl          # many (domain, problem, plan) cases

One plan: a readable trace (steps numbered from 1), the first failing step with its
unmet preconditions, error class and a suggested repair, the goal, the metric. Several
plans, or ``--cases``: one JSON line per plan on standard output (domains and problems
are read once) and a summary on standard error. ``--lenient`` replays with the EAI
simulators' reading instead (a step whose effects already hold is an *additional step*,
a warning).

Exit 0 when every plan is valid, 1 when one is not, 2 on bad input (unreadable files,
malformed PDDL, a problem that does not fit its domain, an unreadable plan).
unified-planning is never imported here.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO

from planproof.commands.errors import BadInput

if TYPE_CHECKING:
    from planproof.boundary import InputError

EXIT_VALID, EXIT_INVALID, EXIT_BAD_INPUT = 0, 1, 2


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--domain", type=Path, help="PDDL domain file")
    parser.add_argument("--problem", type=Path, help="PDDL problem file")
    parser.add_argument(
        "--plan",
        action="append",
        help="plan file (one action per line, LLM text, planner output or JSON); '-' reads "
        "standard input; repeat for several plans (then one JSON line per plan)",
    )
    parser.add_argument(
        "--cases",
        type=Path,
        help="JSONL of cases {id, domain, problem, plan | plan_file}; relative paths are "
        "read from the file's folder; one JSON line of results per case",
    )
    parser.add_argument(
        "--lenient",
        action="store_true",
        help="EAI reading: a step whose precondition fails but whose effects already hold "
        "is an additional step (a warning), not a failure",
    )
    parser.add_argument(
        "--repair",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="search the shortest insertion (up to 3 actions) that makes a failing step "
        "applicable (default: on for one plan, off for many)",
    )
    parser.add_argument(
        "--tolerance",
        type=float,
        default=None,
        help="temporal plans: points closer than this are simultaneous for mutex checks and "
        "duration constraints (VAL's -t; default 0.01)",
    )
    parser.add_argument(
        "--strict-numeric",
        action="store_true",
        help="the letter of PDDL 2.1: a fluent without an initial value is undefined even "
        "when actions only increase it (default: such a fluent, e.g. total-cost, starts at "
        "0, as VAL and Fast Downward read it, with a note)",
    )
    parser.add_argument("--json", action="store_true", help="print the result as JSON")


class _Bad(BadInput):
    """Bad input with the PDDL reader's position details (presented by ``planproof.cli``;
    in the batch form, on the case's own line)."""

    def __init__(self, message: str, detail: dict[str, Any] | None = None) -> None:
        extra = dict(detail or {})
        kind = str(extra.pop("error", "bad-input"))
        extra.pop("message", None)
        super().__init__(message, kind=kind, detail=extra)


def _as_bad(err: object) -> _Bad:
    """An input error (or a message) as this command's bad input."""
    from planproof.boundary import InputError

    if isinstance(err, InputError):
        return _Bad(str(err), {k: v for k, v in err.to_dict().items() if v is not None})
    return _Bad(str(err))


def _read(path: Path | str) -> str:
    """A regular file (or standard input for ``-``) through the input boundary: UTF-8,
    bounded in size; FIFOs and devices are refused unread; what cannot be read is bad
    input naming the file and the place."""
    from planproof.boundary import InputError, decode, read_limited, read_text

    try:
        if str(path) == "-":
            return decode(read_limited(sys.stdin.buffer, source="<stdin>"), source="<stdin>")
        return read_text(path)
    except InputError as err:
        raise _as_bad(err) from None
    except (OSError, ValueError) as exc:  # a NUL in the path
        raise _Bad(f"cannot read {path}: {exc}") from None


def load(
    domain_path: Path,
    problem_path: Path,
    *,
    fold_case: bool = False,
    domains: dict[Path, Any] | None = None,
    problem_text: str | None = None,
) -> tuple[Any, Any]:
    """(Domain, Problem) from files; a problem that does not fit its domain (unknown
    predicate, function, object or type, wrong arity) is bad input. ``domains`` caches
    the domain files read, by path."""
    from dataclasses import replace

    from planproof.pddl.errors import PDDLSyntaxError
    from planproof.pddl.reader import check_problem, read_domain_file, read_problem

    df = domains.get(domain_path) if domains is not None else None
    if df is None:
        try:
            df = read_domain_file(_read(domain_path), fold_case=fold_case)
        except PDDLSyntaxError as exc:
            detail = {**exc.to_dict(), "file": str(domain_path)}
            raise _Bad(f"{domain_path}: {exc}", detail) from None
        if domains is not None:
            domains[domain_path] = df
    domain = df.domain
    try:
        text = _read(problem_path) if problem_text is None else problem_text
        problem = read_problem(text, fold_case=fold_case)
    except PDDLSyntaxError as exc:
        raise _Bad(f"{problem_path}: {exc}", {**exc.to_dict(), "file": str(problem_path)}) from None
    if df.constants:
        problem = replace(problem, constants={**df.constants, **problem.constants})
    issues = check_problem(domain, problem)
    if issues:
        raise _Bad(
            f"{problem_path} does not fit {domain_path}: " + "; ".join(issues[:5]),
            {
                "error": "problem-does-not-fit",
                "message": "; ".join(issues),
                "file": str(problem_path),
            },
        )
    return domain, problem


class _Tasks:
    """Domains and problems read once per path (the batch form's saving)."""

    def __init__(self, *, strict_numeric: bool = False) -> None:
        self.domains: dict[Path, Any] = {}
        self.tasks: dict[tuple[Path, Path], Any] = {}
        self.strict_numeric = strict_numeric

    def get(self, domain_path: Path, problem_path: Path) -> Any:
        from planproof.pddl.validate import ValidationLimitError, compile_task

        key = (domain_path, problem_path)
        if key not in self.tasks:
            temporal = _temporal_task(self.domains, domain_path, problem_path)
            if temporal is not None:
                self.tasks[key] = temporal
                return temporal
            domain, problem = load(domain_path, problem_path, fold_case=True, domains=self.domains)
            try:
                self.tasks[key] = compile_task(domain, problem, strict_numeric=self.strict_numeric)
            except ValidationLimitError as exc:
                raise _Bad(
                    f"{domain_path}: {exc}", {"error": "too-large", "message": str(exc)}
                ) from None
        return self.tasks[key]


def _temporal_task(domains: dict[Path, Any], domain_path: Path, problem_path: Path) -> Any:
    """The compiled temporal task when the domain has durative actions (else None)."""
    from planproof.pddl.reader import is_temporal_domain

    if domain_path not in domains:
        text = _read(domain_path)
        if not is_temporal_domain(text):
            return None
        from planproof.pddl.errors import PDDLSyntaxError
        from planproof.pddl.temporal import read_temporal_domain

        try:
            domains[domain_path] = read_temporal_domain(text)
        except PDDLSyntaxError as exc:
            detail = {**exc.to_dict(), "file": str(domain_path)}
            raise _Bad(f"{domain_path}: {exc}", detail) from None
    entry = domains[domain_path]
    if not isinstance(entry, tuple):
        return None
    from planproof.pddl.errors import PDDLSyntaxError
    from planproof.pddl.temporal import compile_temporal, split_timed_literals

    df, durative = entry
    try:
        text, tils = split_timed_literals(_read(problem_path))
    except PDDLSyntaxError as exc:
        raise _Bad(f"{problem_path}: {exc}", {**exc.to_dict(), "file": str(problem_path)}) from None
    cache = {domain_path: df}
    _, problem = load(domain_path, problem_path, fold_case=True, domains=cache, problem_text=text)
    issues = [
        f"undeclared object {a.name}"
        for t in tils
        for a in t.atom.args
        if a.name not in {**problem.constants, **problem.objects, **df.constants}
    ] + [
        f"unknown predicate {t.atom.pred}" for t in tils if t.atom.pred not in df.domain.predicates
    ]
    if issues:
        raise _Bad(f"{problem_path}: timed initial literal: " + "; ".join(issues[:5]))
    return compile_temporal(df, durative, problem, tils)


def _check_temporal(task: Any, plan_text: str, tolerance: Any) -> dict[str, Any]:
    import math

    from planproof.pddl.plan_io import PlanFormatError
    from planproof.pddl.temporal import (
        DEFAULT_TOLERANCE,
        read_temporal_plan,
        validate_temporal,
    )

    try:
        steps, notes = read_temporal_plan(plan_text)
    except PlanFormatError as exc:
        raise _Bad(f"plan: {exc}", exc.to_dict()) from None
    tol = DEFAULT_TOLERANCE if tolerance is None else tolerance
    if isinstance(tol, bool) or not isinstance(tol, int | float) or not 0 < tol < math.inf:
        raise _Bad(f"the tolerance must be a positive finite number, got {tol!r}")
    v = validate_temporal(task, steps, tolerance=float(tol))
    return {"ok": True, **v.to_dict(), "notes": list(notes)}


def check_one(
    tasks: _Tasks,
    domain_path: Path,
    problem_path: Path,
    plan_text: str,
    *,
    repair: bool,
    tolerance: float | None = None,
) -> dict[str, Any]:
    """The result of one plan as data (``ok`` False with the reason on bad input); a
    domain with durative actions is checked by :mod:`planproof.pddl.temporal`."""
    from planproof.pddl.plan_io import PlanFormatError, read_plan_text
    from planproof.pddl.validate import Task, validate

    task = tasks.get(domain_path, problem_path)
    if not isinstance(task, Task):  # a temporal task (that module is imported only for one)
        return _check_temporal(task, plan_text, tolerance)
    try:
        plan = read_plan_text(plan_text)
    except PlanFormatError as exc:
        raise _Bad(f"plan: {exc}", exc.to_dict()) from None
    v = validate(task, plan.steps, repair=repair)
    return {"ok": True, **v.to_dict(), "notes": [*plan.notes, *v.notes]}


def _lenient(args: argparse.Namespace, plan_text: str) -> tuple[dict[str, Any], bool]:
    from planproof.metrics.transition_modeling.replay import check_plan, pddl_task, to_actions
    from planproof.pddl.plan_io import PlanFormatError, read_plan_text

    domain, problem = load(args.domain, args.problem, fold_case=True)
    if domain.has_numbers or domain.derived or problem.numeric:
        raise _Bad("--lenient replays the EAI fragment: no numeric fluents, no derived predicates")
    try:
        plan = read_plan_text(plan_text)
    except PlanFormatError as exc:
        raise _Bad(f"plan: {exc}", exc.to_dict()) from None
    steps = [(n.lower(), tuple(a.lower() for a in args)) for n, args in plan.steps]
    check = check_plan(pddl_task(domain, problem), to_actions(steps))
    data: dict[str, Any] = check.to_dict()
    for s in data["trace"]:  # numbered from 1, as in the default reading
        s["step"] += 1
    if data["error"]:
        data["error"]["step"] += 1
        data["failed_step"] = data["error"]["step"]
    return {"ok": True, **data, "notes": list(plan.notes)}, check.valid


def run(args: argparse.Namespace) -> int:
    import math

    if args.tolerance is not None and not (math.isfinite(args.tolerance) and args.tolerance > 0):
        raise _Bad(f"--tolerance must be a positive finite number, got {args.tolerance}")
    if args.cases is not None:
        if args.plan or args.domain or args.problem:
            raise _Bad("--cases replaces --domain, --problem and --plan")
        return _run_cases(args)
    if not (args.domain and args.problem and args.plan):
        raise _Bad("give --domain, --problem and --plan (or --cases FILE)")
    if len(args.plan) > 1:
        return _run_many(args)
    text = _read(args.plan[0])
    if args.lenient:
        data, valid = _lenient(args, text)
    else:
        repair = True if args.repair is None else args.repair
        tasks = _Tasks(strict_numeric=args.strict_numeric)
        data = check_one(
            tasks, args.domain, args.problem, text, repair=repair, tolerance=args.tolerance
        )
        valid = bool(data["valid"])
    data = {"domain": str(args.domain), "problem": str(args.problem), **data}
    if args.json:
        print(json.dumps(data, indent=2, sort_keys=True))
    else:
        _print_human(data)
    return EXIT_VALID if valid else EXIT_INVALID


def _run_many(args: argparse.Namespace) -> int:
    tasks = _Tasks(strict_numeric=args.strict_numeric)
    cases = (
        {"id": str(p), "domain": args.domain, "problem": args.problem, "plan_file": p}
        for p in args.plan
    )
    return _batch(args, tasks, cases, Path("."), len(args.plan))


def _run_cases(args: argparse.Namespace) -> int:
    from planproof.boundary import InputError, open_regular

    def cases() -> Iterator[dict[str, Any]]:
        try:
            fh = open_regular(args.cases, max_bytes=None)
        except InputError as err:
            yield {"_error": err, "id": str(args.cases)}
            return
        with fh:
            yield from _case_lines(fh, str(args.cases))

    return _batch(args, _Tasks(strict_numeric=args.strict_numeric), cases(), args.cases.parent)


def _case_lines(fh: BinaryIO, source: str) -> Iterator[dict[str, Any]]:
    """The cases of a JSON Lines file, one per non-blank line, each read on its own through
    the input boundary (bounded line length, UTF-8, JSON depth), so a bad line is that
    case's error and the next line is still read. A file in another encoding (UTF-16,
    UTF-32) is one error for the whole file: its lines cannot be told apart."""
    from planproof.boundary import InputError, decode, loads
    from planproof.boundary.limits import MAX_FILE_BYTES, MAX_JSONL_LINES

    n = 0
    while True:
        raw = fh.readline(MAX_FILE_BYTES + 1)
        if not raw:
            return
        n += 1
        where = f"line {n}"
        if n > MAX_JSONL_LINES:
            yield {
                "_error": f"{source}: more than {MAX_JSONL_LINES} lines; the rest is not read "
                "(split the file)",
                "id": where,
            }
            return
        if len(raw) > MAX_FILE_BYTES and not raw.endswith(b"\n"):
            while raw and not raw.endswith(b"\n"):  # skip the rest of the line, unread
                raw = fh.readline(MAX_FILE_BYTES)
            yield {
                "_error": f"{source} ({where}): over the limit of {MAX_FILE_BYTES} bytes; "
                "put the plan in a plan_file",
                "id": where,
            }
            continue
        try:
            text = decode(raw, source=source)
        except InputError as err:
            if err.kind == "wrong-encoding" and n == 1:  # the whole file is UTF-16/32
                yield {"_error": err, "id": source}
                return
            yield {"_error": _at_line(err, where), "id": where}
            continue
        if not text.strip():
            continue
        try:
            c = loads(text, source=source, where=where)
        except InputError as err:
            yield {"_error": err, "id": where}
            continue
        if not isinstance(c, dict):
            yield {"_error": f"{source} ({where}): a case is a JSON object", "id": where}
            continue
        yield {"id": where, **c}


def _at_line(err: InputError, where: str) -> InputError:
    """``err`` with its place given within the file (``line 7, byte 3``)."""
    from planproof.boundary import InputError

    place = f"{where}, {err.where}" if err.where else where
    return InputError(err.message, source=err.source, kind=err.kind, hint=err.hint, where=place)


def _batch(
    args: argparse.Namespace,
    tasks: _Tasks,
    cases: Iterator[dict[str, Any]],
    base: Path,
    total: int | None = None,
) -> int:
    """One JSON line per case on stdout; a summary on stderr; exit 2 if a case was bad
    input, else 1 if one was invalid, else 0."""
    from planproof.commands.progress import progress_bar

    counts = {"valid": 0, "invalid": 0, "bad_input": 0}
    first_bad: dict[str, Any] | None = None
    repair = bool(args.repair)
    with progress_bar("verifying plans", total) as advance:
        for c in cases:
            out: dict[str, Any] = {"id": c.get("id")}
            try:
                if "_error" in c:
                    raise _as_bad(c["_error"])
                fields = [c.get(k) for k in ("domain", "problem")]
                if not all(isinstance(f, str | Path) for f in fields):
                    raise _Bad('a case needs "domain" and "problem" paths')
                plan = c.get("plan")
                if plan is None and isinstance(c.get("plan_file"), str | Path):
                    plan = _read(base / c["plan_file"])
                if not isinstance(plan, str):
                    raise _Bad('a case needs "plan" (text) or "plan_file" (a path)')
                out.update(
                    check_one(
                        tasks,
                        base / str(fields[0]),
                        base / str(fields[1]),
                        plan,
                        repair=repair,
                        tolerance=c.get("tolerance", args.tolerance),
                    )
                )
                del out["trace"]
                counts["valid" if out["valid"] else "invalid"] += 1
            except _Bad as bad:
                out.update(bad.to_dict())
                counts["bad_input"] += 1
                first_bad = first_bad or out
            print(json.dumps(out, sort_keys=True))
            advance()
    done = sum(counts.values())
    if done == 0:  # the error is the first line on stderr, before any count
        raise _Bad("no cases to verify")
    if first_bad is not None:  # says, first on stderr, why the status will be 2
        print(
            f"planproof: error: {counts['bad_input']} of {done} case(s) are bad input, "
            f"first {first_bad.get('id')}: {first_bad.get('message')}",
            file=sys.stderr,
        )
    print(
        f"{done} plans: {counts['valid']} valid, {counts['invalid']} invalid, "
        f"{counts['bad_input']} bad input",
        file=sys.stderr,
    )
    if counts["bad_input"]:
        return EXIT_BAD_INPUT
    return EXIT_INVALID if counts["invalid"] else EXIT_VALID


def _print_human(data: dict[str, Any]) -> None:
    for note in data.get("notes", []):
        print(f"note: {note}")
    for s in data["trace"]:
        changes = [f"+{a}" for a in s["added"]] + [f"-{d}" for d in s["deleted"]]
        changes += [f"{k}={v:g}" for k, v in s.get("changed", {}).items()]
        print(f"{s['step']:>3}  {s['action']:<40} {' '.join(changes)}")
        if s.get("warning"):
            print(f"     warning (additional step): {s['warning']}")
    err = data["error"]
    if err is not None:
        print(f"{err['step']:>3}  {err['action']}  FAILED [{err['error_type']}]")
        print(f"     {err['message']}")
        if err["unmet"]:
            print(f"     unmet: {', '.join(err['unmet'])}")
        if err.get("repair"):
            print(f"     repair: insert {' '.join(err['repair'])} before step {err['step']}")
        elif err.get("repair_note"):
            print(f"     repair: {err['repair_note']}")
    if data["goal_holds"]:
        print("goal: satisfied")
    else:
        print(f"goal: NOT satisfied; unmet: {', '.join(data['unmet_goal'])}")
    for key in ("goal_error", "metric_error"):
        if data.get(key):
            print(f"error: {data[key]}")
    if data.get("metric") is not None:
        print(f"metric {data['metric_expression']}: {data['metric']:g}")
    if data.get("temporal"):
        final = data["final_value"]
        print(
            f"{data['happenings']} happenings, makespan {data['makespan']:g}"
            + (f", final value {final:g}" if final is not None else "")
            + f" (tolerance {data['tolerance']:g})"
        )
    verdict = "VALID" if data["valid"] else "INVALID"
    print(f"{verdict}: {data['executed']} of {data['steps']} steps executed")
