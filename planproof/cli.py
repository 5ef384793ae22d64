"""The ``planproof`` command line.

Exit status everywhere: 0 = the answer is yes (parsed / holds / satisfiable / entails),
1 = the answer is no, 2 = bad input (a typed error explains it), 3 = the solver could not
decide within its time limit, 130 = interrupted. Each command imports only what it needs,
so ``planproof ltl parse`` never pays for z3 or the planners.

Errors are presented here and only here (:func:`present_error`): commands raise
:class:`planproof.commands.errors.BadInput`, and the typed input errors of the lower layers
that escape a command are presented the same way — ``planproof: error: MESSAGE`` on
stderr, or ``{"ok": false, "error": KIND, "message": ...}`` on stdout with ``--json``,
exit status 2, never a traceback or an exception class name.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from planproof.commands.errors import BadInput

EXIT_YES, EXIT_NO, EXIT_BAD_INPUT, EXIT_UNKNOWN = 0, 1, 2, 3
EXIT_INTERRUPTED = 130

EXAMPLES = ("watch_tv",)

__all__ = ["BadInput", "build_parser", "main", "present_error"]


def _emit(args: argparse.Namespace, data: dict[str, Any], human: Callable[[], None]) -> None:
    if args.json:
        print(json.dumps(data, indent=2, sort_keys=True))
    else:
        human()


def _read_formula(text: str | None, file: str | None) -> str:
    if file is not None:
        from planproof.boundary import read_text
        from planproof.ltl.parser import MAX_LENGTH

        return read_text(file, max_bytes=4 * MAX_LENGTH)
    if text is None:
        raise BadInput("give a formula as an argument or with --file")
    return text


def _parse(text: str) -> Any:
    from planproof.ltl import LTLSyntaxError, parse

    try:
        return parse(text)
    except LTLSyntaxError as err:
        detail = err.to_dict()
        kind = str(detail.pop("error"))
        detail.pop("message")
        raise BadInput(str(err), kind=kind, detail=detail, context=err.context()) from None


def _universe(objects: str | None, universe_file: str | None, *formulas: Any) -> Any:
    from planproof.ltl.ast import constants
    from planproof.ltl.io import TraceFormatError, load_json, universe_from_json
    from planproof.ltl.trace import Universe

    try:
        if universe_file is not None:
            return universe_from_json(load_json(Path(universe_file)))
    except TraceFormatError as err:
        raise BadInput(str(err)) from None
    if objects is not None:
        return Universe.from_names(n.strip() for n in objects.split(",") if n.strip())
    names: set[str] = set()
    for f in formulas:
        names |= constants(f)
    return Universe.from_names(names)


# --- ltl parse -------------------------------------------------------------------------


def cmd_ltl_parse(args: argparse.Namespace) -> int:
    from planproof.ltl import to_text
    from planproof.ltl.ast import constants, depth, is_temporal, predicates, size

    f = _parse(_read_formula(args.formula, args.file))
    data = {
        "ok": True,
        "formula": to_text(f),
        "size": size(f),
        "depth": depth(f),
        "temporal": is_temporal(f),
        "predicates": sorted([p, n] for p, n in predicates(f)),
        "objects": sorted(constants(f)),
    }
    _emit(args, data, lambda: print(data["formula"]))
    return EXIT_YES


# --- ltl check -------------------------------------------------------------------------


def _load_example(name: str) -> dict[str, Any]:
    from importlib import resources

    text = resources.files("planproof.examples").joinpath(f"{name}.json").read_text()
    doc: dict[str, Any] = json.loads(text)
    return doc


def cmd_ltl_check(args: argparse.Namespace) -> int:
    from planproof.ltl import to_text
    from planproof.ltl.evaluate import TraceEvaluator
    from planproof.ltl.io import TraceFormatError, load_json, trace_from_json

    example: dict[str, Any] | None = None
    if args.trace is None:
        example = _load_example(args.example)
    formula_text = (
        _read_formula(args.formula, args.file)
        if args.formula is not None or args.file is not None
        else (example or {}).get("formula")
    )
    if formula_text is None:
        raise BadInput("give a formula (the bundled examples carry their own)")
    f = _parse(formula_text)
    try:
        raw = example["trace"] if example is not None else load_json(Path(args.trace))
        trace, universe = trace_from_json(raw)
    except TraceFormatError as err:
        raise BadInput(str(err)) from None
    vocab = args.actions or (example or {}).get("actions_vocabulary")
    actions = frozenset(a.strip().lower() for a in vocab) if vocab else None
    # one evaluator for the formula and its parts: atom vectors are shared between them
    check = TraceEvaluator(trace, universe, actions, final=args.reading == "final")
    value = check.holds(f)
    parts = f.children if type(f).__name__ in {"And", "Then"} else ()
    part_values: list[dict[str, Any]] = [
        {"formula": to_text(p), "holds": check.holds(p)} for p in parts
    ]
    data = {
        "holds": value,
        "reading": args.reading,
        "formula": to_text(f),
        "positions": len(trace),
        "actions": len(trace.actions),
        "parts": part_values,
        "failed": None if value else _why_not(type(f).__name__, part_values),
        "source": f"example:{args.example}" if example is not None else args.trace,
    }

    def human() -> None:
        from rich.table import Table

        from planproof.commands.console import stdout_console

        console = stdout_console()
        console.print(f"[bold]formula[/bold] {data['formula']}")
        console.print(
            f"[bold]trace[/bold]   {data['source']}: {len(trace.actions)} actions, "
            f"{len(trace)} states; reading: {args.reading}"
        )
        if part_values:
            table = Table("part", "holds on the trace")
            for p in part_values:
                table.add_row(p["formula"], "yes" if p["holds"] else "[red]no[/red]")
            console.print(table)
        verdict = "[green]HOLDS[/green]" if value else "[red]DOES NOT HOLD[/red]"
        console.print(f"verdict: {verdict}")
        if data["failed"]:
            console.print(f"why: {data['failed']['message']}", markup=False)

    _emit(args, data, human)
    return EXIT_YES if value else EXIT_NO


def _why_not(kind: str, parts: Sequence[dict[str, Any]]) -> dict[str, str]:
    """Which part of a failed formula failed: a part that does not hold on the trace, or,
    when every part of a ``then`` holds somewhere, their order."""
    false = [p["formula"] for p in parts if not p["holds"]]
    if false:
        return {"kind": "part", "part": false[0], "message": f"{false[0]} does not hold"}
    if kind == "Then" and parts:
        order = " then ".join(p["formula"] for p in parts)
        return {
            "kind": "order",
            "part": order,
            "message": f"each part holds on the trace, but not in the order 'then' asks: {order}",
        }
    return {"kind": "formula", "part": "", "message": "the formula does not hold"}


# --- ltl sat / entails -----------------------------------------------------------------


def _axioms(names: Sequence[str], universe: Any) -> tuple[Any, ...]:
    from planproof.ltl import axioms

    out: list[Any] = []
    for name in names:
        builder = axioms.NAMED_AXIOMS.get(name)
        if builder is None:
            raise BadInput(
                f"unknown axiom set {name!r}; known: {', '.join(sorted(axioms.NAMED_AXIOMS))}"
            )
        out.extend(builder(universe))
    return tuple(out)


def _solver_call(fn: Callable[[int], Any], args: argparse.Namespace) -> Any:
    """The Z3 query within the options' resource budget, with a spinner on a terminal."""
    from planproof.commands.progress import progress_bar
    from planproof.commands.solver_budget import budget_of
    from planproof.ltl import LTLError

    budget = budget_of(args)
    try:
        with progress_bar(f"solving with Z3 (budget {budget:,} units)", None):
            return fn(budget)
    except LTLError as err:
        raise BadInput(str(err)) from None


def _budget_text(res: Any) -> str:
    """The human line for an undecided query: the budget named as a budget."""
    if res.status == "budget":
        return "unknown (resource limit): Z3 spent its budget; give a larger --rlimit"
    return f"unknown: Z3 gave up ({res.reason})"


def cmd_ltl_sat(args: argparse.Namespace) -> int:
    from planproof.ltl import to_text
    from planproof.ltl.smt import satisfiable

    f = _parse(_read_formula(args.formula, args.file))
    universe = _universe(args.objects, args.universe, f)
    axioms = _axioms(args.axioms, universe)
    res = _solver_call(lambda budget: satisfiable(f, universe, axioms, rlimit=budget), args)
    model = sorted(to_text(a) for a in res.model) if res.model is not None else None
    data = {
        "formula": to_text(f),
        "satisfiable": None if res.unknown else res.sat,
        "status": res.status,
        "model": model,
        "objects": list(universe.names),
        "axioms": list(args.axioms),
    }

    def human() -> None:
        if res.unknown:
            print(_budget_text(res))
        elif res.sat:
            if model:
                print("satisfiable; a witness state makes true: " + ", ".join(model))
            else:  # every atom false is a witness: say so rather than print nothing
                print("satisfiable; a witness state: every atom false (the empty state)")
        else:
            print("unsatisfiable")

    _emit(args, data, human)
    if res.unknown:
        return EXIT_UNKNOWN
    return EXIT_YES if res.sat else EXIT_NO


def cmd_ltl_entails(args: argparse.Namespace) -> int:
    from planproof.ltl import to_text
    from planproof.ltl.smt import entails, equivalent

    f, g = _parse(args.premise), _parse(args.conclusion)
    universe = _universe(args.objects, args.universe, f, g)
    axioms = _axioms(args.axioms, universe)
    fn = equivalent if args.equivalent else entails
    res = _solver_call(lambda budget: fn(f, g, universe, axioms, rlimit=budget), args)
    counter = getattr(res, "counterexample", None)
    data = {
        "premise": to_text(f),
        "conclusion": to_text(g),
        "relation": "equivalent" if args.equivalent else "entails",
        "holds": None if res.unknown else res.holds,
        "status": res.status,
        "counterexample": sorted(to_text(a) for a in counter) if counter is not None else None,
    }

    def human() -> None:
        word = "is equivalent to" if args.equivalent else "entails"
        if res.unknown:
            print(_budget_text(res))
        elif res.holds:
            print(f"yes: premise {word} conclusion")
        else:
            ce = ", ".join(data["counterexample"] or [])
            state = f"{{{ce}}}" if ce else "every atom false (the empty state)"
            print(
                f"no: premise does not {'match' if args.equivalent else 'entail'} conclusion; "
                f"counterexample state: {state}"
            )

    _emit(args, data, human)
    if res.unknown:
        return EXIT_UNKNOWN
    return EXIT_YES if res.holds else EXIT_NO


# --- data ------------------------------------------------------------------------------


def cmd_data_fetch(args: argparse.Namespace) -> int:
    from planproof.commands.progress import progress_bar
    from planproof.data import DataUnavailableError

    try:
        with progress_bar(f"fetching and converting the {args.dataset} data", None):
            if args.dataset == "published":
                from planproof.data.published import published_dir, published_files

                files = published_files()
                data: dict[str, Any] = {
                    "cache": str(published_dir()),
                    "files": len(files),
                    "cells": sorted({f"{f.module}-{f.dataset}" for f in files}),
                    "models": len({f.model for f in files}),
                }
            else:
                from planproof.data.eai_goals import load_eai_goals

                data = load_eai_goals().summary()
    except DataUnavailableError as err:
        raise BadInput(str(err)) from None

    def human() -> None:
        """Plain lines (JSON only with --json)."""
        print(f"{args.dataset} data ready")
        for key, value in data.items():
            shown = ", ".join(map(str, value)) if isinstance(value, list) else value
            print(f"  {key.replace('_', ' ')}: {shown}")

    _emit(args, data, human)
    return EXIT_YES


# --- argument parsing ------------------------------------------------------------------


def _add_formula_args(p: argparse.ArgumentParser, *, required: bool = True) -> None:
    p.add_argument("formula", nargs=None if required else "?", help="the formula text")
    p.add_argument("--file", help="read the formula from a file instead")


def _add_solver_args(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--objects", help="comma-separated object names (default: those in the formulas)"
    )
    p.add_argument("--universe", help="JSON file {object: [types]} for typed quantifiers")
    p.add_argument(
        "--axioms",
        action="append",
        default=[],
        help="named domain axioms to assume (e.g. virtualhome); repeatable",
    )
    from planproof.commands.solver_budget import add_budget_arguments

    add_budget_arguments(p)


def build_parser(chosen: tuple[str, ...] | None = None) -> argparse.ArgumentParser:
    """The whole command tree (command modules imported only for their arguments); with
    ``chosen`` (a command path), only that command's module is imported, the others
    keep their name and help (a single ``verify`` call then imports only what it
    needs)."""
    parser = _Parser(prog="planproof", description="Verify and diagnose plans written by LLMs.")
    parser.add_argument("--version", action="version", version="planproof 0.1.0")
    top = parser.add_subparsers(dest="command", required=True)

    ltl = top.add_parser("ltl", help="the goal logic: parse, check on a trace, sat, entails")
    sub = ltl.add_subparsers(dest="ltl_command", required=True)

    p = sub.add_parser("parse", help="parse a formula and print it in normal form")
    _add_formula_args(p)
    p.set_defaults(handler=cmd_ltl_parse)

    p = sub.add_parser("check", help="evaluate a formula on a state-action trace")
    p.add_argument("formula", nargs="?", help="the formula (default: the example's)")
    p.add_argument("--file", help="read the formula from a file")
    p.add_argument("--trace", help="trace JSON (default: the bundled example)")
    p.add_argument(
        "--example", choices=EXAMPLES, default="watch_tv", help="the bundled example trace"
    )
    p.add_argument(
        "--reading",
        choices=("eventually", "final"),
        default="eventually",
        help="eventually: the paper's LTL semantics; final: state goals in the final state, "
        "action goals as an ordered subsequence",
    )
    p.add_argument(
        "--actions",
        type=lambda s: s.split(","),
        default=None,
        help="comma-separated action predicates (others are state predicates)",
    )
    p.set_defaults(handler=cmd_ltl_check)

    p = sub.add_parser("sat", help="is the (then-free) formula satisfiable? (Z3)")
    _add_formula_args(p)
    _add_solver_args(p)
    p.set_defaults(handler=cmd_ltl_sat)

    p = sub.add_parser("entails", help="does PREMISE entail CONCLUSION? (Z3)")
    p.add_argument("premise", help="the formula assumed")
    p.add_argument("conclusion", help="the formula that must follow")
    p.add_argument("--equivalent", action="store_true", help="check equivalence instead")
    _add_solver_args(p)
    p.set_defaults(handler=cmd_ltl_entails)

    data = top.add_parser("data", help="fetch and convert benchmark data")
    dsub = data.add_subparsers(dest="data_command", required=True)
    p = dsub.add_parser("fetch", help="fetch a dataset into the cache (once)")
    p.add_argument(
        "dataset",
        choices=("eai", "published"),
        help="eai: the EAI tasks (eai-eval wheel); published: the LLM answers behind the "
        "EAI paper (virtualhome-eval 0.1.1 wheel)",
    )
    p.set_defaults(handler=cmd_data_fetch)

    for group, parsers in (("ltl", sub.choices), ("data", dsub.choices)):
        for name, sp in parsers.items():
            sp.add_argument("--json", action="store_true", help="print the result as JSON")
            sp.epilog = epilog((group, name))
            sp.formatter_class = argparse.RawDescriptionHelpFormatter
    for sp in (parser, ltl, data):
        add_global_json(sp)
    _add_command_modules(top, chosen)
    return parser


def add_global_json(parser: argparse.ArgumentParser) -> None:
    """``--json`` on a parser that has subcommands: kept apart from the subcommand's own
    ``--json`` (whose default would overwrite it) and merged by :func:`wants_json`."""
    parser.add_argument(
        "--json",
        dest="json_global",
        action="store_true",
        default=argparse.SUPPRESS,
        help="print results (and errors) as JSON; accepted before or after the subcommand",
    )


COMMANDS: dict[tuple[str, ...], tuple[str, str]] = {
    ("evaluate", "action-sequencing"): (
        "planproof.commands.evaluate_action_sequencing",
        "score LLM action plans on the EAI tasks (VirtualHome, BEHAVIOR)",
    ),
    ("evaluate", "teach"): (
        "planproof.commands.evaluate_teach",
        "check TEACh episodes against their task definitions (SR, GC, TLW)",
    ),
    ("evaluate", "housekeep"): (
        "planproof.commands.evaluate_housekeep",
        "score Housekeep tidy-house episodes (ES, OS, SOS, RQ, PPE, MOC, MC)",
    ),
    ("evaluate", "partnr"): (
        "planproof.commands.evaluate_partnr",
        "replay two-agent PARTNR plans and score them with the evaluation functions",
    ),
    ("evaluate", "goal-interpretation"): (
        "planproof.commands.evaluate_goal_interpretation",
        "score predicted goals: P/R/F1 over goal options, Z3 satisfiability and entailment",
    ),
    ("evaluate", "subgoal-decomposition"): (
        "planproof.commands.evaluate_subgoal_decomposition",
        "refine predicted subgoal sequences into actions by search and score the plans",
    ),
    ("evaluate", "transition-modeling"): (
        "planproof.commands.evaluate_transition_modeling",
        "score predicted PDDL operators: logic-form F1, planner success, Z3 checks",
    ),
    ("reproduce", "eai"): (
        "planproof.commands.reproduce",
        "re-score the EAI paper's published answers: paper vs reference code vs planproof",
    ),
    ("verify",): (
        "planproof.commands.verify",
        "replay a plan against a PDDL domain and problem; first failing step and goal",
    ),
    ("plan",): (
        "planproof.commands.plan",
        "solve a PDDL problem with Fast Downward, pyperplan or builtin (planproof's own)",
    ),
    ("compare-domains",): (
        "planproof.commands.compare_domains",
        "compare an LLM-written PDDL domain with a reference, per operator (Z3) and by plans",
    ),
    ("run",): (
        "planproof.commands.run",
        "prompt a model (litellm, or the built-in planner) on an EAI module; cache, score",
    ),
    ("report",): (
        "planproof.commands.report",
        "one self-contained HTML report from run and evaluate directories",
    ),
    ("compare",): (
        "planproof.commands.compare",
        "is run A really better than run B? paired tests (McNemar, paired bootstrap)",
    ),
    ("demo",): (
        "planproof.commands.demo",
        "no key needed: the built-in planner on an EAI module, scored, with its report",
    ),
    ("tasks",): (
        "planproof.commands.tasks",
        "list a dataset's task identifiers, names and goals (to write a responses file)",
    ),
    ("prompts",): (
        "planproof.commands.prompts",
        "write one prompt per task for an EAI module (JSONL)",
    ),
}
"""Commands implemented in ``planproof.commands``: path → (module, help). A module
exposes ``add_arguments(parser)`` and ``run(args) -> int`` and imports heavy libraries
only inside ``run``."""

GROUP_HELP = {
    "evaluate": "score LLM outputs with a benchmark's metrics",
    "reproduce": "re-score a paper's published LLM outputs and compare with its tables",
}

EVALUATED = "0 evaluated, 2 bad input (unreadable file, no response matches a task)"
USAGE: dict[tuple[str, ...], tuple[str, str]] = {
    ("ltl", "parse"): ("0 parsed, 2 bad input", "planproof ltl parse 'on(tv.1) then off(tv.1)'"),
    ("ltl", "check"): (
        "0 holds, 1 does not hold, 2 bad input",
        "planproof ltl check --trace trace.json 'grab(cup.1) then ontop(cup.1, table.2)'",
    ),
    ("ltl", "sat"): (
        "0 satisfiable, 1 unsatisfiable, 2 bad input, 3 solver time limit",
        "planproof ltl sat 'on(tv.1) and not on(tv.1)'",
    ),
    ("ltl", "entails"): (
        "0 entails, 1 does not, 2 bad input, 3 solver time limit",
        "planproof ltl entails 'on(a.1) and off(b.2)' 'on(a.1)'",
    ),
    ("data", "fetch"): ("0 fetched, 2 data unavailable", "planproof data fetch eai"),
    ("evaluate", "action-sequencing"): (
        EVALUATED,
        "planproof evaluate action-sequencing --dataset virtualhome --responses answers.json",
    ),
    ("evaluate", "goal-interpretation"): (
        EVALUATED,
        "planproof evaluate goal-interpretation --dataset behavior --responses answers.jsonl",
    ),
    ("evaluate", "subgoal-decomposition"): (
        EVALUATED,
        "planproof evaluate subgoal-decomposition --dataset virtualhome --limit 20",
    ),
    ("evaluate", "transition-modeling"): (
        EVALUATED,
        "planproof evaluate transition-modeling --dataset virtualhome --responses ops.json",
    ),
    ("evaluate", "teach"): (
        "0 evaluated, 2 bad input",
        "planproof evaluate teach episodes/ --output results/teach",
    ),
    ("evaluate", "housekeep"): (
        "0 evaluated, 1 an expected value differs (or --require-success failed), 2 bad input",
        "planproof evaluate housekeep eps.jsonl --preferences prefs.csv --output results/hk\n"
        "  planproof evaluate housekeep test/Beechwood_1_int.json.gz --plan oracle_first_correct "
        "nothing",
    ),
    ("evaluate", "partnr"): (
        "0 evaluated, 1 a plan differs from its expect block (or --require-success failed), "
        "2 bad input",
        "planproof evaluate partnr --ltl --output results/partnr",
    ),
    ("verify",): (
        "0 every plan valid, 1 a plan invalid, 2 bad input (with --cases: a case was bad "
        "input; every case still gets its line)",
        "planproof verify --domain d.pddl --problem p.pddl --plan plan.txt\n"
        "  planproof verify --cases cases.jsonl > results.jsonl",
    ),
    ("plan",): (
        "0 a plan was found and validates, 1 none (timeout, unsolvable, unsupported), "
        "2 bad input (also a --timeout that is not a positive finite number, or a task "
        "over the grounding limit)",
        "planproof plan --domain d.pddl --problem p.pddl --engine pyperplan",
    ),
    ("compare-domains",): (
        "0 equivalent (and every plan cross-validates), 1 the candidate differs or cannot "
        "be compared (reported), 2 bad input",
        "planproof compare-domains ref.pddl llm.pddl --problems p1.pddl p2.pddl",
    ),
    ("run",): (
        "0 every task answered and scored, 1 some calls failed (running the same command "
        "again retries only them), 2 bad input, 130 interrupted",
        "planproof run --model openai/gpt-4o-mini --module action-sequencing "
        "--dataset virtualhome --limit 10",
    ),
    ("report",): (
        "0 written, 2 bad input (no results directory)",
        "planproof report planproof-runs/*/action-sequencing-virtualhome "
        "planproof-results/action-sequencing-virtualhome --output report/",
    ),
    ("demo",): (
        "0 every task answered and scored, 1 some calls failed, 2 bad input",
        "planproof demo --limit 20",
    ),
    ("tasks",): ("0 listed, 2 bad input", "planproof tasks --dataset virtualhome | head"),
    ("compare",): (
        "0 compared, 2 bad input (not results directories, different modules, no common task)",
        "planproof compare planproof-runs/planner/action-sequencing-virtualhome "
        "planproof-runs/openai_gpt-4o-mini/action-sequencing-virtualhome",
    ),
    ("reproduce", "eai"): (
        "0 tables printed, 1 printed but some published file could not be scored (named "
        "in a warning, 'failed' in the tables), 2 bad input (no published file could be scored)",
        "planproof reproduce eai --modules goal-interpretation --run planproof-runs/my-model",
    ),
    ("prompts",): (
        "0 written, 2 bad input",
        "planproof prompts --module action-sequencing --dataset virtualhome --output p.jsonl",
    ),
}
"""Each command's exit statuses and one example, printed at the end of its ``--help``."""

CONVENTIONS = (
    "--json may come before or after the subcommand. Errors: 'planproof: error: ...' on "
    "stderr (one JSON object on stdout with --json). Steps are 0-based in JSON output and "
    "1-based in text (PDDL verify and plan: 1-based in both, as VAL counts)."
)


def epilog(path: tuple[str, ...]) -> str:
    """The end of a command's ``--help``: exit statuses, an example, the conventions."""
    exits, example = USAGE.get(path, ("0 ok, 1 no, 2 bad input", f"planproof {' '.join(path)}"))
    import textwrap

    parts = (f"exit status: {exits}", f"example:\n  {example}", CONVENTIONS)
    return "\n\n".join(p if p.startswith("example") else textwrap.fill(p, 88) for p in parts)


def _chosen_command(argv: Sequence[str]) -> tuple[str, ...] | None:
    """The command path the words of ``argv`` start with, if it names a command module."""
    words = tuple(a for a in argv if not a.startswith("-"))
    for path in COMMANDS:
        if words[: len(path)] == path:
            return path
    return None


def _add_command_modules(top: Any, chosen: tuple[str, ...] | None = None) -> None:
    import importlib

    groups: dict[str, Any] = {}
    for path, (module, help_text) in COMMANDS.items():
        parent = top
        for i, part in enumerate(path[:-1]):
            key = " ".join(path[: i + 1])
            if key not in groups:
                g = parent.add_parser(part, help=GROUP_HELP.get(part))
                add_global_json(g)
                groups[key] = g.add_subparsers(dest=f"{part}_command", required=True)
            parent = groups[key]
        p = parent.add_parser(
            path[-1],
            help=help_text,
            description=help_text,
            epilog=epilog(path),
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        if chosen is not None and path != chosen:
            continue
        mod = importlib.import_module(module)
        mod.add_arguments(p)
        p.set_defaults(handler=mod.run)


# --- error presentation ----------------------------------------------------------------

ERROR_PREFIX = "planproof: error: "

INPUT_ERRORS: tuple[tuple[str, str], ...] = (
    ("planproof.ltl.errors", "LTLError"),
    ("planproof.data.cache", "DataUnavailableError"),
    ("planproof.interface.errors", "ResponsesFileError"),
    ("planproof.interface.llm.cache", "CacheError"),
    ("planproof.report.load", "ReportError"),
    ("planproof.simulators.housekeep.errors", "HousekeepError"),
    ("planproof.simulators.partnr.errors", "PartnrError"),
    ("planproof.simulators.teach.errors", "TeachError"),
)
"""The lower layers' typed errors that mean "fix your input" when they escape a command
(module, class). Looked up only in modules already imported, so start-up pays nothing."""


def as_bad_input(exc: BaseException) -> BadInput | None:
    """``exc`` as the one bad-input error, or None when it is not an input error."""
    if isinstance(exc, BadInput):
        return exc
    boundary = sys.modules.get("planproof.boundary.errors")
    if boundary is not None and isinstance(exc, boundary.InputError):
        detail = {
            k: v
            for k, v in exc.to_dict().items()
            if k not in ("error", "message") and v is not None
        }
        return BadInput(str(exc), kind=exc.kind, detail=detail)
    for module, name in INPUT_ERRORS:
        mod = sys.modules.get(module)
        cls = getattr(mod, name, None) if mod is not None else None
        if isinstance(cls, type) and isinstance(exc, cls):
            return BadInput(str(exc) or "bad input")
    return None


def present_error(err: BadInput, as_json: bool) -> int:
    """The one presentation of bad input: prefix + message on stderr, or JSON on stdout."""
    if as_json:
        print(json.dumps(err.to_dict(), indent=2, sort_keys=True))
    else:
        print(ERROR_PREFIX + err.message, file=sys.stderr)
        if err.context:
            print(err.context, file=sys.stderr)
    return EXIT_BAD_INPUT


def _silence_stdout() -> None:
    """After a closed pipe (``planproof ... | head``): point stdout at /dev/null so the
    interpreter's final flush does not print a BrokenPipeError of its own."""
    import os

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # stdout is not a real file (captured in tests)
        pass


class UsageError(SystemExit):
    """An argparse usage error (unknown option, missing argument, bad choice), raised
    instead of printed so that :func:`main` presents it like every other bad input: on
    stderr after the usage line, or as one JSON object on stdout with ``--json``."""

    def __init__(self, message: str, usage: str) -> None:
        super().__init__(EXIT_BAD_INPUT)
        self.message = message
        self.usage = usage


def _exit_now(code: int) -> None:
    """Leave at once after a Ctrl-C: what was finished is already on disk (caches commit
    per answer, run directories are written whole or not at all), and the interpreter's
    tear-down of a large evaluation's objects took another 1-2 s, not "within a second"."""
    import contextlib
    import os

    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    os._exit(code)


class _Parser(argparse.ArgumentParser):
    """argparse whose usage errors are raised as :class:`UsageError` (exit status 2), and
    whose bad choices say "did you mean" (difflib's closest match)."""

    def error(self, message: str) -> Any:
        raise UsageError(message, self.format_usage())

    def _check_value(self, action: argparse.Action, value: Any) -> None:
        if action.choices is not None and value not in action.choices:
            close = _close_matches(str(value), [str(c) for c in action.choices])
            if close:
                shown = ", ".join(repr(c) for c in action.choices)
                raise argparse.ArgumentError(
                    action,
                    f"invalid choice: {value!r} (choose from {shown}); did you mean {close}?",
                )
        super()._check_value(action, value)


def _close_matches(word: str, candidates: Sequence[str]) -> str:
    """``'a'`` or ``'a' or 'b'``: the candidates closest to a misspelt word, or ''."""
    import difflib

    found = difflib.get_close_matches(word, candidates, n=2, cutoff=0.6)
    return " or ".join(repr(c) for c in found)


def _leaf_parser(parser: argparse.ArgumentParser, argv: Sequence[str]) -> list[Any]:
    """The parsers the command line walked through, top first (``planproof evaluate
    teach`` → the top parser, ``evaluate``'s, ``teach``'s)."""
    chain: list[Any] = [parser]
    for token in argv:
        subs = [a for a in chain[-1]._actions if isinstance(a, argparse._SubParsersAction)]
        if subs and token in subs[0].choices:
            chain.append(subs[0].choices[token])
    return chain


def _suggest_options(message: str, parser: argparse.ArgumentParser, argv: Sequence[str]) -> str:
    """The usage error with "did you mean '--dataset'?" for each misspelt option given
    (``--datset``), matched against the options of the (sub)command it was given to; a
    misspelt required option is first reported as missing, so every message is looked at."""
    options = {o for p in _leaf_parser(parser, argv) for a in p._actions for o in a.option_strings}
    hints = []
    for token in dict.fromkeys(
        t.split("=", 1)[0] for t in argv if t.startswith("--") and t != "--"
    ):
        if token not in options:
            close = _close_matches(token, sorted(options))
            hints.append(f"{token}: did you mean {close}?" if close else f"{token}: no such option")
    return message + ("; " + "; ".join(hints) if hints else "")


def _present_usage(err: UsageError, as_json: bool) -> int:
    """A usage error: usage line and prefixed message on stderr, or one JSON object."""
    if as_json:
        data = {"ok": False, "error": "usage", "message": err.message, "usage": err.usage.strip()}
        print(json.dumps(data, indent=2, sort_keys=True))
    else:
        print(err.usage, end="", file=sys.stderr)
        print(ERROR_PREFIX + err.message, file=sys.stderr)
    return EXIT_BAD_INPUT


def wants_json(args: argparse.Namespace) -> bool:
    """``--json`` anywhere: after the subcommand or before it (``planproof --json ltl parse``,
    ``planproof ltl --json parse``)."""
    return bool(getattr(args, "json", False) or getattr(args, "json_global", False))


def _check_argv(argv: Sequence[str]) -> BadInput | None:
    """Arguments that are not valid text (undecodable bytes arrive as lone surrogates)
    would fail at the first print; they are refused before the command runs."""
    from planproof.boundary import InputError, check_text

    for i, arg in enumerate(argv):
        try:
            check_text(arg, source=f"argument {i + 1}", max_chars=10**9)
        except InputError as err:
            return as_bad_input(err)
    return None


def main(argv: Sequence[str] | None = None) -> int:
    given = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser(_chosen_command(given))
    bad_argument = _check_argv(given)
    if bad_argument is not None:
        return present_error(bad_argument, "--json" in given)
    as_json = "--json" in given
    try:
        args = parser.parse_args(given)
    except UsageError as err:  # argparse: usage errors are bad input
        if err.message.startswith("unrecognized arguments"):  # raised by the top parser
            err.usage = _leaf_parser(parser, given)[-1].format_usage()
        err.message = _suggest_options(err.message, parser, given)
        return _present_usage(err, as_json)
    except SystemExit as exc:  # --help, --version
        return EXIT_BAD_INPUT if exc.code not in (0, None) else EXIT_YES
    args.json = wants_json(args)
    try:
        code: int = args.handler(args)
        sys.stdout.flush()
        if code == EXIT_INTERRUPTED and argv is None:  # a command that caught Ctrl-C itself
            _exit_now(code)
    except BrokenPipeError:
        _silence_stdout()
        return EXIT_YES
    except KeyboardInterrupt:
        print(ERROR_PREFIX + "interrupted", file=sys.stderr)
        if argv is None:  # the program itself, not a caller in Python
            _exit_now(EXIT_INTERRUPTED)
        return EXIT_INTERRUPTED
    except Exception as exc:
        bad = as_bad_input(exc)
        if bad is None:
            raise
        try:
            return present_error(bad, args.json)
        except BrokenPipeError:
            _silence_stdout()
            return EXIT_BAD_INPUT
    return code


if __name__ == "__main__":
    sys.exit(main())
