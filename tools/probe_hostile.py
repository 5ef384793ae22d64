"""The hostile-input probe of issue 18, rerunnable: every command of the CLI fed every
kind of bad input, plus a fuzz of real LLM answers through the library's readers.

Commands and their arguments are enumerated from the argparse parser
(:func:`planproof.cli.build_parser`), so a new command or option is probed without
editing this file. Each argument gets the inputs of its kind: files (empty, binary,
invalid UTF-8, UTF-16/32, lone surrogates, JSON of the wrong shape, 100,000-deep
nesting, 10 MB texts, directories, paths under a file, devices...), outputs (a directory
where a file goes, a file where a directory goes...), numbers (NaN, inf, negatives, text)
and text (empty, 100,000 parentheses, undecodable bytes); a few cases per command are
large but legal work (100,000-step traces, 10,000-action domains, 100,000-record result
files, 1,000-parameter operators). A case passes when the command, run in a fresh
process, ends within its bound with a documented exit status (0, 1, 2, or 3 where the
command documents it), no traceback, and, on exit 2, its first line after argparse's
usage and any warnings starts with ``planproof: error:``. Exit 0 on input that cannot be
right (NaN, binary data...) is listed as *suspect*.

    nice -n 19 python tools/probe_hostile.py -j 2            # everything
    python tools/probe_hostile.py --only "ltl sat" --fuzz 0  # one command
    python tools/probe_hostile.py --list                     # the cases, not run

Exit status: 0 when every case and fuzz call passed, 1 otherwise.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "planproof" / "examples"
Arg = str | bytes

# --- what the CLI has --------------------------------------------------------------------


def leaf_commands(
    parser: argparse.ArgumentParser,
) -> dict[tuple[str, ...], argparse.ArgumentParser]:
    """Every runnable command path (``("evaluate", "teach")``) and its parser."""
    out: dict[tuple[str, ...], argparse.ArgumentParser] = {}

    def walk(p: argparse.ArgumentParser, path: tuple[str, ...]) -> None:
        subs = [a for a in p._actions if isinstance(a, argparse._SubParsersAction)]
        if not subs:
            out[path] = p
        for a in subs:
            for name, sp in a.choices.items():
                walk(sp, (*path, name))

    walk(parser, ())
    return out


OUTPUT_DESTS = frozenset({"output", "report", "out", "summary", "write_episodes"})
"""Destinations written to rather than read."""
FILE_DESTS = frozenset({"file", "trace", "universe", "plan", "cache"})
"""File arguments whose ``type`` is a plain string."""
SKIPPED_DESTS = frozenset({"help", "version", "json", "json_global", "api_base"})
"""Not probed: ``--api-base`` would call a network this machine does not reach."""
NUMBER_TYPES = ("seconds", "float", "int", "integer_from_", "number_from_")


@dataclass(frozen=True)
class Slot:
    """One argument of one command, and the kind of input it takes."""

    command: tuple[str, ...]
    option: str  # "--timeout", or "#0" for the first positional
    kind: str  # input | output | number | text | choice
    repeatable: bool = False


def _type_name(action: argparse.Action) -> str:
    return getattr(action.type, "__name__", "") if action.type is not None else ""


def slots(command: tuple[str, ...], parser: argparse.ArgumentParser) -> list[Slot]:
    """The probed arguments of a command, classified from the parser alone."""
    out: list[Slot] = []
    positional = 0
    for a in parser._actions:
        if a.dest in SKIPPED_DESTS or isinstance(a, argparse._SubParsersAction):
            continue
        if a.option_strings:
            option = next((o for o in a.option_strings if o.startswith("--")), a.option_strings[0])
        else:
            option = f"#{positional}"
            positional += 1
        if a.nargs == 0:  # flags: nothing to feed
            continue
        tname = _type_name(a)
        if a.choices is not None:
            kind = "choice"
        elif a.dest in OUTPUT_DESTS:
            kind = "output"
        elif a.dest == "cache":
            kind = "cache"  # read and written: a missing file is a new cache
        elif tname == "Path" or a.dest in FILE_DESTS:
            kind = "input"
        elif any(tname.startswith(t) for t in NUMBER_TYPES):
            kind = "number"
        else:
            kind = "text"
        repeatable = isinstance(a, argparse._AppendAction) or a.nargs in ("+", "*")
        out.append(Slot(command, option, kind, repeatable))
    return out


# --- valid starting points -----------------------------------------------------------------


@dataclass(frozen=True)
class Base:
    """A valid, quick invocation of a command; a case replaces one argument of it."""

    positionals: tuple[str, ...]
    options: tuple[tuple[str, str], ...] = ()

    def argv(self, command: tuple[str, ...], slot: Slot | None, value: Arg | None) -> list[Arg]:
        pos: list[Arg] = list(self.positionals)
        opts: list[tuple[str, Arg]] = list(self.options)
        if slot is not None and value is not None:
            if slot.option.startswith("#"):
                i = int(slot.option[1:])
                pos = [*pos, *[""] * (i + 1 - len(pos))] if i >= len(pos) else pos
                pos[i] = value
            else:
                dropped = {slot.option, *REPLACES.get((command, slot.option), ())}
                opts = [(o, v) for o, v in opts if o not in dropped] + [(slot.option, value)]
        flat: list[Arg] = [*command, *pos]
        for o, v in opts:
            flat += [o] if v == "" and o in FLAG_OPTIONS else [o, v]
        return flat


REPLACES: dict[tuple[tuple[str, ...], str], tuple[str, ...]] = {
    (("verify",), "--cases"): ("--domain", "--problem", "--plan"),
}
"""Options that stand instead of others of the base: a case giving the first drops the
others (``verify --cases`` with ``--domain`` is refused before the cases file is opened,
so its cases would never reach the file)."""

FLAG_OPTIONS = frozenset({"--no-planner", "--no-logic", "--ltl", "--gold"})
PDDL = EXAMPLES / "pddl"
TEACH = EXAMPLES / "teach" / "coffee.json"
HOUSEKEEP = EXAMPLES / "housekeep" / "real_episodes.jsonl"
DATASET = ("--dataset", "virtualhome")

BASES: dict[tuple[str, ...], Base] = {
    ("ltl", "parse"): Base(("on(a.1)",)),
    ("ltl", "check"): Base(("on(tv.1)",)),
    # the default Z3 budget: --rlimit and --timeout exclude each other, each is probed alone
    ("ltl", "sat"): Base(("on(a.1) and not off(a.1)",)),
    ("ltl", "entails"): Base(("on(a.1)", "on(a.1) or off(a.1)")),
    ("data", "fetch"): Base(("eai",)),
    ("evaluate", "action-sequencing"): Base((), (DATASET, ("--limit", "2"))),
    ("evaluate", "goal-interpretation"): Base((), (DATASET, ("--limit", "2"))),
    ("evaluate", "subgoal-decomposition"): Base((), (DATASET, ("--limit", "2"))),
    ("evaluate", "transition-modeling"): Base(
        (), (DATASET, ("--limit", "1"), ("--no-planner", ""))
    ),
    ("evaluate", "teach"): Base((str(TEACH),)),
    ("evaluate", "housekeep"): Base((str(HOUSEKEEP),)),
    ("evaluate", "partnr"): Base(()),
    ("reproduce", "eai"): Base(
        (),
        (
            ("--modules", "goal-interpretation"),
            ("--models", "gpt-4o-2024-05-13"),
            ("--no-planner", ""),
        ),
    ),
    ("verify",): Base(
        (),
        (
            ("--domain", str(PDDL / "virtualhome.pddl")),
            ("--problem", str(PDDL / "browse_internet.pddl")),
            ("--plan", str(PDDL / "browse_internet.plan")),
        ),
    ),
    ("plan",): Base(
        (),
        (
            ("--domain", str(PDDL / "virtualhome.pddl")),
            ("--problem", str(PDDL / "browse_internet.pddl")),
            ("--engine", "pyperplan"),
        ),
    ),
    ("run",): Base(
        (),
        (
            ("--model", "planner"),
            ("--module", "action-sequencing"),
            DATASET,
            ("--limit", "1"),
        ),
    ),
    ("report",): Base(("{run}",)),
    ("demo",): Base((), (("--limit", "1"),)),
    ("tasks",): Base((), (DATASET, ("--limit", "2"))),
    ("prompts",): Base((), (("--module", "action-sequencing"), DATASET, ("--limit", "1"))),
}
"""Known commands' starting points; ``{run}`` is a small run directory made once."""


def base_for(command: tuple[str, ...], parser: argparse.ArgumentParser) -> Base:
    """The starting point of a command; one guessed from its parser for a command not in
    :data:`BASES` (required arguments get their first choice, or ``x``)."""
    if command in BASES:
        return BASES[command]
    pos: list[str] = []
    opts: list[tuple[str, str]] = []
    for a in parser._actions:
        if a.dest in SKIPPED_DESTS or isinstance(a, argparse._SubParsersAction):
            continue
        value = str(next(iter(a.choices))) if a.choices else "x"
        if not a.option_strings and a.nargs not in ("?", "*"):
            pos.append(value)
        elif a.option_strings and a.required:
            opts.append((a.option_strings[-1], value))
    return Base(tuple(pos), tuple(opts))


# --- hostile values --------------------------------------------------------------------


def _deep(n: int) -> bytes:
    return b"[" * n + b"]" * n


FILE_BYTES: dict[str, Callable[[], bytes]] = {
    "empty": lambda: b"",
    "whitespace": lambda: b" \n\t\n",
    "binary": lambda: bytes(range(256)) * 8,
    "invalid-utf8": lambda: b'{"a": "\xff\xfe\xfa"}\n',
    "utf16-bom": lambda: '{"states": [[]]}'.encode("utf-16"),
    "utf16-no-bom": lambda: '{"states": [[]]}'.encode("utf-16-le"),
    "utf32": lambda: '{"a": 1}'.encode("utf-32"),
    "utf8-bom-json": lambda: b"\xef\xbb\xbf" + b'{"a": 1}',
    "lone-surrogate": lambda: b'[{"identifier": "x\\ud800", "llm_output": "\\udc00"}]',
    "json-number": lambda: b"42",
    "json-null": lambda: b"null",
    "json-string": lambda: b'"text"',
    "json-list-of-junk": lambda: b'[42, "x", null, [], {}]',
    "json-object-wrong-types": lambda: b'{"states": 7, "actions": {"a": null}, "id": []}',
    "json-lines-mixed": lambda: b'{"a": 1}\nnot json\n[1, 2\n',
    "huge-integer": lambda: b"[" + b"9" * 5000 + b"]",
    "deep-nesting": lambda: _deep(100_000),
    "deep-object": lambda: b'{"a":' * 50_000 + b"1" + b"}" * 50_000,
    "ten-mb-text": lambda: b'"' + b"x" * 10_000_000 + b'"',
    "ten-mb-lines": lambda: b"x y z\n" * 1_750_000,
    "pddl-garbage": lambda: b"(define (domain d) (:action a :parameters (?x" + b" (" * 500,
    "prose": lambda: b"I am sorry, I cannot help with that.\n",
}
"""Regular files of bad content, made once per probe."""

SPECIAL_PATHS = (
    "directory", "under-a-file", "missing", "fifo", "/dev/null", "/dev/zero", "/dev/urandom",
)  # fmt: skip

OUTPUT_VALUES = ("existing-directory", "existing-file", "under-a-file", "fifo", "/dev/null")

NUMBERS: tuple[str, ...] = ("nan", "inf", "-inf", "1e308", "1e400", "-1", "0", "ten", "")
HUGE_NUMBER = "99999999999999999999"
"""Also fed where a huge value is refused rather than honoured (not ``--limit``, where it
asks for every task: legal, and slow)."""

TEXTS: dict[str, Arg] = {
    "empty": "",
    "parentheses-100k": "(" * 100_000,
    "long-100k": "x" * 100_000,
    "undecodable": b"on(a\xff\xfe)",
    "unbalanced": "on(a.1, (b",
    "quantifier-chain": "forall x. " * 2_000 + "on(x)",
    "nan": "nan",
}
"""Command-line text (an argument is at most 128 kB on Linux)."""

SUSPECT_WHEN_OK: dict[str, frozenset[str]] = {
    "input": frozenset(
        {"binary", "invalid-utf8", "utf16-bom", "utf16-no-bom", "utf32", "deep-nesting"}
        | {"directory", "missing", "under-a-file", "fifo", "/dev/zero", "/dev/urandom"}
    ),
    "cache": frozenset(
        {"binary", "invalid-utf8", "utf16-bom", "utf16-no-bom", "utf32", "directory"}
    ),
    "number": frozenset({"nan", "inf", "-inf", "1e400", "ten", "empty"}),
    "special": frozenset({"nan"}),
}
"""Per kind of argument, the values on which exit 0 is listed as suspect: they cannot be
a valid request (``nan`` is a fine object name, but not a fine time limit)."""


# --- cases ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Case:
    """One invocation: ``argv`` after ``planproof``; ``{fixtures}`` and ``{run}`` in it
    are filled in when it runs."""

    name: str
    argv: tuple[Arg, ...]
    category: str
    allowed: frozenset[int] = frozenset({0, 1, 2})
    kind: str = "special"  # the argument's kind (see Slot), or "special"


def _allowed(command: tuple[str, ...]) -> frozenset[int]:
    from planproof.cli import USAGE

    exits = USAGE.get(command, ("",))[0]
    return frozenset({0, 1, 2} | ({3} if re.search(r"\b3\b", exits) else set()))


LONG_BY_DEFAULT: dict[tuple[str, ...], tuple[str, ...]] = {
    ("reproduce", "eai"): ("--models", "gpt-4o-2024-05-13"),
}
"""Commands whose default, without arguments, is legal work of many minutes (``reproduce
eai`` re-scores every published file: over 30 minutes on a loaded machine): their
no-argument case runs the same defaults on one model's files."""


def cli_cases() -> list[Case]:
    """Every command × every argument × every value of the argument's kind, plus each
    command without arguments, plus :func:`special_cases`."""
    from planproof.cli import build_parser

    cases: list[Case] = []
    for command, parser in leaf_commands(build_parser()).items():
        base = base_for(command, parser)
        allowed = _allowed(command)
        label = " ".join(command)
        narrowed = LONG_BY_DEFAULT.get(command, ())
        cases.append(Case(f"{label} | no arguments", (*command, *narrowed), "none", allowed))
        cases.append(
            Case(f"{label} | base", tuple(base.argv(command, None, None)), "base", allowed)
        )
        for slot in slots(command, parser):
            values: list[tuple[str, Arg]]
            if slot.kind in ("input", "cache"):
                values = [(c, "{fixtures}/" + c) for c in (*FILE_BYTES, *SPECIAL_PATHS)]
                values = [(c, c if c.startswith("/dev/") else v) for c, v in values]
            elif slot.kind == "output":
                values = [
                    (c, c if c.startswith("/dev/") else "{fixtures}/out-" + c)
                    for c in OUTPUT_VALUES
                ]
            elif slot.kind == "number":
                values = [(n or "empty", n) for n in NUMBERS]
                if slot.option != "--limit":
                    values.append(("huge", HUGE_NUMBER))
            elif slot.kind == "choice":
                values = [("bad-choice", "no-such-choice"), ("empty", "")]
            else:
                values = list(TEXTS.items())
            for category, value in values:
                argv = base.argv(command, slot, value)
                name = f"{label} | {slot.option} | {category}"
                cases.append(Case(name, tuple(argv), category, allowed, slot.kind))
    return cases + special_cases()


SPECIALS: tuple[tuple[str, str, str], ...] = (
    ("ltl check | 100,000-step trace", "ltl check on(a.1) --trace {f}trace-100k.json", "large"),
    (
        "ltl check | 5,000-part then chain",
        "ltl check --file {f}chain-5k.ltl --trace {f}trace-chain.json",
        "large",
    ),
    (
        "ltl check | quantifier over 3,000 objects",
        "ltl check 'forall x - cup. exists y - cup. on(x, y)' --trace {f}trace-objects.json",
        "large",
    ),
    (
        "ltl sat | quantifier over 100,000 objects",
        "ltl sat 'forall x - cup. on(x)' --universe {f}universe-100k.json",
        "large",
    ),
    (
        "ltl entails | quantifier over 100,000 objects",
        "ltl entails 'forall x - cup. on(x)' 'exists x - cup. on(x)' "
        "--universe {f}universe-100k.json",
        "large",
    ),
    ("ltl parse | 1 MB formula file", "ltl parse --file {f}formula-1mb.ltl", "large"),
    (
        "plan | 10,000 actions x 10,000 objects",
        "plan --domain {f}domain-10k.pddl --problem {f}problem-10k.pddl",
        "large",
    ),
    (
        "verify | 10,000 actions x 10,000 objects",
        "verify --domain {f}domain-10k.pddl --problem {f}problem-10k.pddl --plan {f}plan-a0.txt",
        "large",
    ),
    (
        "plan | 1,000-parameter operator",
        "plan --domain {f}domain-1000p.pddl --problem {f}problem-2.pddl",
        "large",
    ),
    (
        "verify | 1,000-parameter operator",
        "verify --domain {f}domain-1000p.pddl --problem {f}problem-2.pddl --plan {f}plan-a0.txt",
        "large",
    ),
    (
        "verify | forall nested 60 deep",
        "verify --domain {f}domain-forall.pddl --problem {f}problem-2.pddl --plan {f}plan-a0.txt",
        "large",
    ),
    (
        "plan | forall nested 60 deep",
        "plan --domain {f}domain-forall.pddl --problem {f}problem-2.pddl",
        "large",
    ),
    (
        "verify | undefined predicate in the problem",
        "verify --domain {pddl}virtualhome.pddl --problem {f}problem-undefined.pddl "
        "--plan {pddl}browse_internet.plan",
        "shape",
    ),
    (
        "verify | 100,000-line plan",
        "verify --domain {pddl}virtualhome.pddl --problem {pddl}browse_internet.pddl "
        "--plan {f}plan-100k.txt",
        "large",
    ),
    (
        "evaluate transition-modeling | 1,000-parameter operator",
        "evaluate transition-modeling --dataset virtualhome --responses {f}tm-1000p.json",
        "large",
    ),
    ("report | 100,000-record results", "report {f}run-100k", "large"),
    (
        "evaluate partnr | episode with unknown keys",
        "evaluate partnr --episodes {f}partnr-unknown-keys.json",
        "shape",
    ),
    (
        "run | --timeout nan with the mock provider",
        "run --model mock/x --module action-sequencing --dataset virtualhome --limit 1 "
        "--mock-response [] --timeout nan",
        "nan",
    ),
)
"""Large but legal work, and the issue's listed cases that need a real format: (name,
command line, category); ``{f}`` is the fixtures directory, ``{pddl}`` the bundled PDDL."""


def special_cases() -> list[Case]:
    """:data:`SPECIALS` as cases (``ltl sat`` and ``entails`` may also answer 3)."""
    import shlex

    out: list[Case] = []
    for name, line, category in SPECIALS:
        filled = line.replace("{f}", "{fixtures}/").replace("{pddl}", str(PDDL) + "/")
        argv = tuple(shlex.split(filled))
        out.append(Case(name, argv, category, _allowed(tuple(argv[:2]))))
    return out


# --- fixture files ---------------------------------------------------------------------


def make_fixtures(d: Path, *, only: frozenset[str] | set[str] | None = None) -> None:
    """Write every file the cases name into ``d`` (about 100 MB); with ``only``, just
    those of :data:`FILE_BYTES` and the small directories (what a quick test needs)."""
    d.mkdir(parents=True, exist_ok=True)
    for name, make in FILE_BYTES.items():
        if only is None or name in only:
            (d / name).write_bytes(make())
    (d / "directory").mkdir(exist_ok=True)
    if not (d / "fifo").exists():
        os.mkfifo(d / "fifo")  # a reader that opens it blocks until someone writes
    (d / "plain").write_text("x", encoding="utf-8")
    (d / "out-existing-directory").mkdir(exist_ok=True)
    (d / "out-existing-file").write_text("x", encoding="utf-8")
    if not (d / "out-fifo").exists():
        os.mkfifo(d / "out-fifo")  # nobody reads it: a writer that opens it blocks
    # "under-a-file" is a path below a regular file
    for name in ("under-a-file", "out-under-a-file"):
        target = d / name
        if target.is_dir():
            shutil.rmtree(target)
        target.write_text("x", encoding="utf-8")
    _run_dir(d / "run-small", 3)
    if only is None:
        _write_large(d)


def _fix_under_a_file(argv: Sequence[Arg], d: Path) -> list[Arg]:
    """``{fixtures}/under-a-file`` means a path *below* that regular file."""
    out: list[Arg] = []
    for arg in argv:
        if isinstance(arg, str):
            path = arg.replace("{fixtures}", str(d))
            out.append(path + "/inside.json" if path.endswith("under-a-file") else path)
        else:
            out.append(arg)
    return out


def _write_large(d: Path) -> None:
    n = 100_000
    (d / "trace-100k.json").write_text(
        json.dumps({"actions": ["go(a.1)"] * n, "states": [["on(a.1)"]] * (n + 1)})
    )
    k = 5000
    (d / "chain-5k.ltl").write_text(" then ".join(f"on(a.{i}, b.1)" for i in range(k)))
    (d / "trace-chain.json").write_text(
        json.dumps(
            {
                "actions": [f"go(a.{i})" for i in range(k - 1)],
                "states": [[f"on(a.{i}, b.1)"] for i in range(k)],
            }
        )
    )
    objects = {f"cup.{i}": ["cup"] for i in range(3000)}
    (d / "trace-objects.json").write_text(
        json.dumps({"objects": objects, "actions": [], "states": [[]]})
    )
    (d / "universe-100k.json").write_text(json.dumps({f"cup.{i}": ["cup"] for i in range(n)}))
    (d / "formula-1mb.ltl").write_text("on(a.1) and " * 80_000 + "on(a.1)")
    acts = "\n".join(
        f"(:action a{i} :parameters (?x) :precondition (p ?x) :effect (q ?x))"
        for i in range(10_000)
    )
    preds = "(:predicates (p ?x) (q ?x))"
    head = f"(define (domain big) (:requirements :strips :adl) {preds}\n"
    (d / "domain-10k.pddl").write_text(head + acts + ")")
    objs = " ".join(f"o{i}" for i in range(10_000))
    (d / "problem-10k.pddl").write_text(
        f"(define (problem pb) (:domain big) (:objects {objs}) (:init (p o0)) (:goal (q o0)))"
    )
    (d / "problem-2.pddl").write_text(
        "(define (problem pb) (:domain big) (:objects o0 o1) (:init (p o0)) (:goal (q o0)))"
    )
    (d / "plan-a0.txt").write_text("(a0 o0)\n")
    params = " ".join(f"?p{k}" for k in range(1000))
    (d / "domain-1000p.pddl").write_text(
        head + f"(:action a0 :parameters ({params}) :precondition (p ?p0) :effect (q ?p0)))"
    )
    depth = 60
    cond = "(p ?x)"
    for i in range(depth):
        cond = f"(forall (?v{i}) (or (p ?v{i}) {cond}))"
    (d / "domain-forall.pddl").write_text(
        head + f"(:action a0 :parameters (?x) :precondition {cond} :effect (q ?x)))"
    )
    problem = (PDDL / "browse_internet.pddl").read_text(encoding="utf-8")
    undefined = re.sub(
        r"\(:goal\s*\(and", "(:goal (and (no_such_predicate computer)", problem, count=1
    )
    assert undefined != problem, "the bundled problem's goal is no longer (and ...)"
    (d / "problem-undefined.pddl").write_text(undefined)
    (d / "plan-100k.txt").write_text("(walk_towards character chair)\n" * n)
    params = " ".join(f"?p{k} - object" for k in range(1000))
    answer = (
        f"(:action switch_on :parameters (?char - character {params}) "
        ":precondition (and) :effect (and))"
    )
    (d / "tm-1000p.json").write_text(json.dumps([{"identifier": "384_1", "llm_output": answer}]))
    _run_dir(d / "run-100k", n)
    bundle = json.loads((EXAMPLES / "partnr" / "episodes.json").read_text(encoding="utf-8"))
    bundle["episodes"][0] |= {"surprise": 1, "another_unknown": {"x": 1}}
    (d / "partnr-unknown-keys.json").write_text(json.dumps(bundle))


def _run_dir(run: Path, records: int) -> None:
    run.mkdir(parents=True, exist_ok=True)
    (run / "run.json").write_text(json.dumps({"model": "m", "module": "action-sequencing"}))
    (run / "summary.json").write_text("{}")
    line = json.dumps({"identifier": "t", "success": True}) + "\n"
    (run / "results.jsonl").write_text(line * records)


# --- running --------------------------------------------------------------------------


@dataclass
class Result:
    case: Case
    status: str  # pass | fail | suspect
    exit_code: int | None
    seconds: float
    why: str = ""
    stderr_head: str = field(default="", repr=False)


def first_error_line(stderr: str) -> str:
    """The line that must start with ``planproof: error:`` on exit 2: the first after
    argparse's usage lines and any ``planproof: warning:`` lines."""
    lines = stderr.splitlines()
    i = 0
    if lines and lines[0].startswith("usage:"):
        i = 1
        while i < len(lines) and lines[i].startswith(" "):
            i += 1
    while i < len(lines) and (lines[i].startswith("planproof: warning:") or not lines[i].strip()):
        i += 1
    return lines[i] if i < len(lines) else ""


def judge(case: Case, code: int | None, stderr: str, timed_out: bool) -> tuple[str, str]:
    """(pass|fail|suspect, why) for one finished case."""
    if timed_out:
        return "fail", "no answer within the bound"
    if "Traceback (most recent call last)" in stderr:
        return "fail", "traceback: " + stderr.strip().splitlines()[-1][:200]
    if code not in case.allowed:
        return "fail", f"exit status {code}"
    if code == 2 and not first_error_line(stderr).startswith("planproof: error:"):
        return "fail", "exit 2 without 'planproof: error:' first: " + stderr[:200]
    if code == 0 and case.category in SUSPECT_WHEN_OK.get(case.kind, frozenset()):
        return "suspect", "exit 0 on input that cannot be right"
    return "pass", ""


def run_case(case: Case, fixtures: Path, bound: float) -> Result:
    """Run one case in a fresh process, in its own scratch directory (outputs with default
    paths land there), stdin closed."""
    argv = _fix_under_a_file(case.argv, fixtures)
    argv = [
        a.replace("{run}", str(fixtures / "run-small")) if isinstance(a, str) else a for a in argv
    ]
    cmd: list[Arg] = [sys.executable, "-m", "planproof.cli", *argv]
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NO_COLOR": "1", "COLUMNS": "100"}
    with tempfile.TemporaryDirectory(prefix="probe-") as cwd:
        t0 = time.perf_counter()
        proc = subprocess.Popen(
            [os.fsencode(a) if isinstance(a, str) else a for a in cmd],
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
        try:
            _, err = proc.communicate(timeout=bound)
            timed_out = False
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            _, err = proc.communicate()
            timed_out = True
        seconds = time.perf_counter() - t0
    stderr = err.decode("utf-8", "replace")
    status, why = judge(case, None if timed_out else proc.returncode, stderr, timed_out)
    return Result(case, status, proc.returncode, seconds, why, stderr[:300])


# --- fuzz through the library ----------------------------------------------------------------


def _real_answers() -> dict[str, list[str]]:
    """Real LLM answers per reader: the published EAI outputs when the user cache has
    them, else the gold answers the package derives (always available with the EAI data)."""
    from planproof.data.published import published_files

    out: dict[str, list[str]] = {}
    try:
        files = published_files()
    except Exception:  # no cache, no network: fall back to the gold answers
        files = []
    for f in files:
        if f.dataset != "virtualhome":
            continue
        rows = json.loads(f.path.read_text(encoding="utf-8"))
        texts = [str(r.get("llm_output", "")) for r in rows if isinstance(r, dict)][:60]
        out.setdefault(f.module, []).extend(texts)
        out.setdefault("responses-file", []).append(json.dumps(rows[:5]))
    if not out:
        from planproof.pddl.eai import load_eai_pddl

        data = load_eai_pddl("virtualhome")
        out["transition-modeling"] = [data.gold_response(i) for i in list(data.solved)[:60]]
        out["action-sequencing"] = ['{"WALK": ["kitchen.1"], "GRAB": ["cup.2"]}']
        out["goal-interpretation"] = ['{"node goals": [], "edge goals": [], "action goals": []}']
        out["subgoal-decomposition"] = ['{"output": ["ONTOP(cup.2, table.1)"]}']
        out["responses-file"] = [
            json.dumps(
                [{"identifier": "1", "llm_output": t} for t in out["transition-modeling"][:5]]
            )
        ]
    return out


def mutate(text: str, rnd: random.Random) -> str:
    """One random corruption of an answer: cut, splice, duplicate, bracket storms, odd
    characters, lone surrogates, deep nesting."""
    n = len(text)
    i, j = sorted((rnd.randint(0, n), rnd.randint(0, n)))
    pick = rnd.randrange(9)
    if pick == 0:
        return text[:i]
    if pick == 1:
        return text[:i] + text[j:]
    if pick == 2:
        return text[:i] + text[i:j] * rnd.randint(2, 50) + text[j:]
    if pick == 3:
        return text[:i] + rnd.choice("([{\"'") * rnd.randint(1, 5000) + text[i:]
    if pick == 4:
        return text[:i] + rnd.choice(")]}\"'") * rnd.randint(1, 5000) + text[i:]
    if pick == 5:
        return (
            text[:i]
            + "".join(chr(rnd.randint(0, 0x10FFFF)) for _ in range(rnd.randint(1, 20)))
            + text[i:]
        )
    if pick == 6:
        return text[:i] + "\ud800" + text[i:]
    if pick == 7:
        k = rnd.randint(10, 3000)
        return text[:i] + "[" * k + text[i:j] + "]" * k + text[j:]
    return "".join(c for c in text if rnd.random() > 0.05)


@dataclass(frozen=True)
class FuzzFailure:
    reader: str
    error: str
    text_head: str


def fuzz(calls: int, seed: int = 18, bound: int = 10) -> tuple[int, list[FuzzFailure]]:
    """``calls`` mutated real answers through the readers of LLM text; a call passes with
    a value or a typed error, within ``bound`` seconds. Returns (calls, failures)."""
    from planproof.boundary import InputError
    from planproof.interface.errors import ResponsesFileError
    from planproof.interface.goals import parse_goal
    from planproof.interface.responses import parse_actions, read_responses_text
    from planproof.interface.subgoals import parse_subgoals
    from planproof.ltl import parse as parse_ltl
    from planproof.ltl.errors import LTLError
    from planproof.pddl.errors import PDDLSyntaxError
    from planproof.pddl.tolerant import read_operators
    from planproof.simulators.virtualhome.tasks import load_virtualhome_tasks

    world = load_virtualhome_tasks()[0].world
    typed: tuple[type[Exception], ...] = (
        InputError,
        LTLError,
        PDDLSyntaxError,
        ResponsesFileError,
    )
    readers: dict[str, tuple[str, Callable[[str], object]]] = {
        "parse_actions virtualhome": (
            "action-sequencing",
            lambda t: parse_actions(t, "virtualhome"),
        ),
        "parse_actions behavior": ("action-sequencing", lambda t: parse_actions(t, "behavior")),
        "parse_goal": ("goal-interpretation", lambda t: parse_goal(t, world)),
        "parse_subgoals": ("subgoal-decomposition", lambda t: parse_subgoals(t, world)),
        "read_operators": ("transition-modeling", read_operators),
        "ltl parse": ("subgoal-decomposition", parse_ltl),
        "read_responses_text": ("responses-file", read_responses_text),
    }
    answers = _real_answers()
    rnd = random.Random(seed)
    failures: list[FuzzFailure] = []

    def alarm(_sig: int, _frame: Any) -> None:
        raise TimeoutError(f"no answer within {bound} s")

    old = signal.signal(signal.SIGALRM, alarm)
    try:
        names = sorted(readers)
        for k in range(calls):
            name = names[k % len(names)]
            module, read = readers[name]
            pool = answers.get(module) or answers[next(iter(answers))]
            text = mutate(rnd.choice(pool), rnd)
            signal.alarm(bound)
            try:
                read(text)
            except typed:
                pass
            except Exception as exc:  # the finding: an untyped error
                failures.append(FuzzFailure(name, f"{type(exc).__name__}: {exc}"[:300], text[:120]))
            finally:
                signal.alarm(0)
    finally:
        signal.signal(signal.SIGALRM, old)
    return calls, failures


# --- the command ----------------------------------------------------------------------


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-j", "--jobs", type=int, default=2, help="cases run at once (2)")
    ap.add_argument("--bound", type=float, default=120.0, help="seconds per case (120)")
    ap.add_argument("--only", help="run the cases whose name contains this text")
    ap.add_argument("--fuzz", type=int, default=5000, help="fuzz calls (5000; 0: none)")
    ap.add_argument("--list", action="store_true", help="print the cases and stop")
    ap.add_argument("--report", type=Path, help="write every result as JSON Lines here")
    args = ap.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    cases = [c for c in cli_cases() if args.only is None or args.only in c.name]
    if args.list:
        for c in cases:
            print(c.name)
        print(f"{len(cases)} cases")
        return 0
    fixtures = Path(tempfile.mkdtemp(prefix="probe-fixtures-"))
    try:
        make_fixtures(fixtures)
        results = list(_run_all(cases, fixtures, args.bound, args.jobs))
    finally:
        shutil.rmtree(fixtures, ignore_errors=True)
    calls, fuzz_failures = fuzz(args.fuzz) if args.fuzz else (0, [])
    if args.report:
        with args.report.open("w", encoding="utf-8") as fh:
            for r in results:
                row = {"case": r.case.name, "status": r.status, "exit": r.exit_code}
                row |= {"seconds": round(r.seconds, 2), "why": r.why}
                fh.write(json.dumps(row) + "\n")
            for f in fuzz_failures:
                fh.write(
                    json.dumps({"fuzz": f.reader, "error": f.error, "text": f.text_head}) + "\n"
                )
    return _summary(results, calls, fuzz_failures)


def _run_all(cases: list[Case], fixtures: Path, bound: float, jobs: int) -> Iterator[Result]:
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        futures = [pool.submit(run_case, c, fixtures, bound) for c in cases]
        for i, fut in enumerate(futures, start=1):
            r = fut.result()
            if r.status != "pass":
                print(f"[{i}/{len(cases)}] {r.status.upper()}: {r.case.name}: {r.why}", flush=True)
            elif i % 50 == 0:
                print(f"[{i}/{len(cases)}] ...", flush=True)
            yield r


def _summary(results: list[Result], calls: int, fuzz_failures: list[FuzzFailure]) -> int:
    by = {s: [r for r in results if r.status == s] for s in ("pass", "fail", "suspect")}
    slowest = sorted(results, key=lambda r: -r.seconds)[:5]
    print(
        f"\nCLI cases: {len(results)}; passed {len(by['pass'])}, suspect {len(by['suspect'])}, "
        f"failed {len(by['fail'])}"
    )
    for r in by["fail"]:
        print(f"  FAIL {r.case.name}: {r.why}")
    for r in by["suspect"]:
        print(f"  suspect {r.case.name}: {r.why}")
    print("slowest: " + "; ".join(f"{r.case.name} {r.seconds:.1f} s" for r in slowest))
    print(f"fuzz calls: {calls}; untyped errors or hangs: {len(fuzz_failures)}")
    for f in fuzz_failures[:20]:
        print(f"  {f.reader}: {f.error} (text starts {f.text_head!r})")
    total = len(results) + calls
    passed = len(results) - len(by["fail"]) + calls - len(fuzz_failures)
    print(f"total: {total} cases, {passed} passed")
    return 0 if passed == total else 1


if __name__ == "__main__":
    sys.exit(main())
