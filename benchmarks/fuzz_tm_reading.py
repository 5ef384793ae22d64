"""Transition modeling's reference reading of planner success
(:mod:`planproof.metrics.transition_modeling.reference_planner`, Fast Downward 23.06's
reading in :mod:`planproof.pddl.fd_reading`) against virtualhome-eval 0.1.1's own scorer
with Fast Downward 23.06, on mutated published answers.

    python benchmarks/fuzz_tm_reading.py [--cases 200] [--seed 11] [--save PATH]

Each case is a published answer (one of the 15 models, a task of ``success_task.json``)
with one to three mutations of the kinds LLMs err in: a free variable, an undeclared
constant / type / predicate, a wrong arity, an atom wrapped in ``exists`` / ``forall`` /
``when`` / ``or`` / ``imply`` / ``(not (not ..))``, case changes, a parenthesis dropped or
added, an operator duplicated, dropped or renamed, text or a fence around the answer.
The reference runs per case (``fuzz_reference_driver.py`` in the
``published-transition-modeling-fd2306`` venv, ``nice -n 19``, resumable under
``benchmarks/results/fuzz-tm-<seed>/``; its per-operator "Action test" calls are skipped,
they do not change the holistic verdict); the reading runs here. Compared per case:
counted (the reference's extraction did not raise), success (FD found a plan). Prints each
disagreement with FD's own status and the reading's, and a count per class; ``--save``
writes the cases and the reference's verdicts as test data
(``tests/data/fuzz/tm_reference_cases.json.gz``). Results: ``docs/reference-differences.md``.
"""

from __future__ import annotations

import json
import random
import re
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from fuzz_common import case_record, fuzz_run, save_cases
from reference_env import PUBLISHED_TM_FD2306

ATOM = re.compile(
    r"\((?!(?:and|not|or|when|forall|exists|imply)\b)([A-Za-z_][\w-]*)((?:\s+\??[\w-]+)*)\s*\)"
)
ACTION = re.compile(r"\(:action\s+(\w+)")
BUDGET = "planner-budget"
"""The class of a disagreement where the reading's builtin planner spent its budget."""
CONSTANTS = ("kitchen", "dining_room", "cup", "Self", "character")


def _atoms(text: str) -> list[re.Match[str]]:
    return [m for m in ATOM.finditer(text) if not m.group(1).startswith(("?", ":"))]


def _pick_atom(text: str, rng: random.Random) -> re.Match[str] | None:
    atoms = _atoms(text)
    return rng.choice(atoms) if atoms else None


def _args(m: re.Match[str]) -> list[str]:
    return m.group(2).split()


def _replace(text: str, m: re.Match[str], new: str) -> str:
    return text[: m.start()] + new + text[m.end() :]


def _atom_text(head: str, args: list[str]) -> str:
    return "(" + " ".join([head, *args]) + ")"


def _swap_arg(m: re.Match[str], rng: random.Random, value: str) -> str | None:
    args = _args(m)
    if not args:
        return None
    args[rng.randrange(len(args))] = value
    return _atom_text(m.group(1), args)


def free_variable(text: str, rng: random.Random) -> str | None:
    m = _pick_atom(text, rng)
    new = m and _swap_arg(m, rng, rng.choice(["?zz", "?loc", "?obj2", "?x"]))
    return _replace(text, m, new) if m and new else None


def undeclared_constant(text: str, rng: random.Random) -> str | None:
    m = _pick_atom(text, rng)
    new = m and _swap_arg(m, rng, rng.choice(CONSTANTS))
    return _replace(text, m, new) if m and new else None


def undeclared_type(text: str, rng: random.Random) -> str | None:
    spots = list(re.finditer(r"- (object|character)\b", text))
    if not spots:
        return None
    m = rng.choice(spots)
    kind = rng.choice(["item", "agent", "obj", "Object"])
    return text[: m.start()] + "- " + kind + text[m.end() :]


def unknown_predicate(text: str, rng: random.Random) -> str | None:
    m = _pick_atom(text, rng)
    if m is None:
        return None
    head = rng.choice(["is_ready", m.group(1) + "_x", "holding", "at"])
    return _replace(text, m, _atom_text(head, _args(m)))


def wrong_arity(text: str, rng: random.Random) -> str | None:
    m = _pick_atom(text, rng)
    if m is None:
        return None
    args = _args(m)
    args = args[:-1] if args and rng.random() < 0.5 else [*args, "?char"]
    return _replace(text, m, _atom_text(m.group(1), args))


def _other_atom(text: str, rng: random.Random, m: re.Match[str]) -> str:
    others = [o.group(0) for o in _atoms(text) if o.group(0) != m.group(0)]
    return rng.choice(others) if others else m.group(0)


def wrapped(kind: str) -> Callable[[str, random.Random], str | None]:
    def mutate(text: str, rng: random.Random) -> str | None:
        m = _pick_atom(text, rng)
        if m is None:
            return None
        atom, other = m.group(0), _other_atom(text, rng, m)
        bound = _swap_arg(m, rng, "?zz") or atom
        ty = rng.choice(["object", "character", "object", "item"])
        new = {
            "exists": f"(exists (?zz - {ty}) {bound})",
            "forall": f"(forall (?zz - {ty}) {bound})",
            "forall-when": f"(forall (?zz - {ty}) (when {other} {bound}))",
            "when": f"(when {other} {atom})",
            "when-not": f"(when (not {other}) {atom})",
            "or": f"(or {atom} {other})",
            "imply": f"(imply {other} {atom})",
            "not-not": f"(not (not {atom}))",
            "not-and": f"(not (and {atom} {other}))",
        }[kind]
        return _replace(text, m, new)

    mutate.__name__ = f"wrapped_{kind}"
    return mutate


def upper_atom(text: str, rng: random.Random) -> str | None:
    m = _pick_atom(text, rng)
    return _replace(text, m, m.group(0).upper()) if m else None


def upper_name(text: str, rng: random.Random) -> str | None:
    names = list(ACTION.finditer(text))
    if not names:
        return None
    m = rng.choice(names)
    name = m.group(1)
    new = name.upper() if rng.random() < 0.5 else name[:1].upper() + name[1:]
    return text[: m.start(1)] + new + text[m.end(1) :]


def upper_all(text: str, rng: random.Random) -> str | None:
    return text.upper()


def drop_paren(text: str, rng: random.Random) -> str | None:
    spots = [i for i, c in enumerate(text) if c in "()"]
    if not spots:
        return None
    i = rng.choice(spots)
    return text[:i] + text[i + 1 :]


def extra_paren(text: str, rng: random.Random) -> str | None:
    spots = [i for i, c in enumerate(text) if c == ")"]
    if not spots:
        return None
    i = rng.choice(spots)
    return text[:i] + ")" + text[i:]


def _blocks(text: str) -> list[tuple[int, int]]:
    """The spans of the ``(:action ...)`` blocks (balanced, or to the end)."""
    out = []
    for m in ACTION.finditer(text):
        depth, i = 0, m.start()
        while i < len(text):
            depth += {"(": 1, ")": -1}.get(text[i], 0)
            i += 1
            if depth == 0:
                break
        out.append((m.start(), i))
    return out


def duplicate_operator(text: str, rng: random.Random) -> str | None:
    blocks = _blocks(text)
    if not blocks:
        return None
    a, b = rng.choice(blocks)
    block = text[a:b]
    if rng.random() < 0.5:
        block = wrong_arity(block, rng) or unknown_predicate(block, rng) or block
    return text[:b] + "\n\n" + block + text[b:]


def drop_operator(text: str, rng: random.Random) -> str | None:
    blocks = _blocks(text)
    if not blocks:
        return None
    a, b = rng.choice(blocks)
    return text[:a] + text[b:]


def rename_operator(text: str, rng: random.Random) -> str | None:
    names = list(ACTION.finditer(text))
    if not names:
        return None
    m = rng.choice(names)
    new = rng.choice(["walk_to", "pick_up", m.group(1) + "_obj", "find"])
    return text[: m.start(1)] + new + text[m.end(1) :]


def around(text: str, rng: random.Random) -> str | None:
    kind = rng.randrange(4)
    if kind == 0:
        return "Here are the PDDL operators:\n\n" + text
    if kind == 1:
        return text + "\n\nThese operators model the task's transitions."
    if kind == 2:
        return "```pddl\n" + text + "\n```"
    return "```json\n" + text + "\n```"


def quote_and_comment(text: str, rng: random.Random) -> str | None:
    blocks = _blocks(text)
    if not blocks:
        return None
    a, _ = rng.choice(blocks)
    note = rng.choice(["; the agent's move\n", "; 'walk' first\n", "; (not done)\n"])
    return text[:a] + note + text[a:]


def effect_bound_by_exists(text: str, rng: random.Random) -> str | None:
    """A variable an existential of the precondition binds, used in the effect."""
    i = text.find(":precondition")
    j = text.find(":effect", i)
    if i < 0 or j < 0:
        return None
    pre = _atoms(text[i:j])
    eff = _atoms(text[j:])
    if not pre or not eff:
        return None
    p = rng.choice(pre)
    e = rng.choice(eff)
    pa = _swap_arg(p, rng, "?zz")
    ea = _swap_arg(e, rng, "?zz")
    if not pa or not ea:
        return None
    text = text[: j + e.start()] + ea + text[j + e.end() :]
    return text[: i + p.start()] + f"(exists (?zz - object) {pa})" + text[i + p.end() :]


def empty_precondition(text: str, rng: random.Random) -> str | None:
    m = re.search(r":precondition\s*\(", text)
    if m is None:
        return None
    depth, i = 0, m.end() - 1
    while i < len(text):
        depth += {"(": 1, ")": -1}.get(text[i], 0)
        i += 1
        if depth == 0:
            break
    return text[: m.end() - 1] + "()" + text[i:]


MUTATIONS: tuple[Callable[[str, random.Random], str | None], ...] = (
    free_variable,
    undeclared_constant,
    undeclared_type,
    unknown_predicate,
    wrong_arity,
    *(
        wrapped(k)
        for k in (
            "exists",
            "forall",
            "forall-when",
            "when",
            "when-not",
            "or",
            "imply",
            "not-not",
            "not-and",
        )
    ),
    upper_atom,
    upper_name,
    upper_all,
    drop_paren,
    extra_paren,
    duplicate_operator,
    drop_operator,
    rename_operator,
    around,
    quote_and_comment,
    effect_bound_by_exists,
    empty_precondition,
)


def mutated_cases(count: int, seed: int) -> list[dict[str, Any]]:
    """``count`` mutated published answers, reproducible from ``seed``."""
    from planproof.data.published import published_files
    from planproof.pddl.eai import load_eai_pddl

    data = load_eai_pddl("virtualhome")
    wanted = set(data.solved) & set(data.task_actions)
    rows = []
    for f in published_files("transition-modeling", "virtualhome"):
        for r in json.loads(f.path.read_text(encoding="utf-8")):
            if str(r.get("identifier")) in wanted:
                rows.append((f.model, str(r["identifier"]), str(r.get("llm_output", ""))))
    rng = random.Random(seed)
    out = []
    for n in range(count):
        model, ident, text = rng.choice(rows)
        applied = []
        for _ in range(rng.choice((1, 1, 2, 2, 3))):
            mutate = rng.choice(MUTATIONS)
            new = mutate(text, rng)
            if new is not None and new != text:
                text = new
                applied.append(mutate.__name__)
        out.append(case_record(f"{seed}-{n}", model, ident, applied, text))
    return out


def reading(case: dict[str, Any]) -> dict[str, Any]:
    """The reference reading's verdict on one case."""
    from planproof.metrics.transition_modeling.reference_planner import reference_planner_task
    from planproof.pddl.eai import load_eai_pddl

    data = load_eai_pddl("virtualhome")
    v = reference_planner_task(data, case["identifier"], case["llm_output"])
    return {
        "counted": v.counted,
        "success": v.success,
        "status": v.status,
        "reason": v.reason[:200],
        "rules": list(v.rules),
    }


def reference_verdict(rec: dict[str, Any]) -> dict[str, Any]:
    """The reference's verdict in the reading's terms (``raised``: its loop raised, the
    whole file would be lost)."""
    task = rec.get("task") or {}
    fd = rec.get("fd") or []
    return {
        "counted": "planner_success" in task,
        "success": bool(task.get("planner_success", False)),
        "fd": fd[-1][0] if fd else "",
        "fd_error": fd[-1][2] if fd else "",
        "raised": rec.get("raised"),
        "slowest": max((c[1] for c in fd), default=0.0),
    }


def main(argv: list[str] | None = None) -> int:
    args, cases, theirs = fuzz_run(
        argv,
        __doc__,
        (200, 11),
        mutated_cases,
        flavour=PUBLISHED_TM_FD2306,
        module="transition_modeling",
    )
    pairs: Counter[str] = Counter()
    stored = []
    agree = 0
    for case in cases:
        ref = reference_verdict(theirs[case["key"]])
        mine = reading(case)
        same = ref["counted"] == mine["counted"] and ref["success"] == mine["success"]
        cls = ""
        if ref["raised"]:
            pairs["reference raised"] += 1
        elif same:
            agree += 1
        else:
            cls = BUDGET if mine["status"] == "budget" else "unexplained"
            pairs[f"{cls}: FD {ref['fd'] or 'not counted'} / reading {mine['status']}"] += 1
            print(f"{case['key']} {case['model']} {case['identifier']} {case['mutations']}:")
            print(f"   reference {ref}\n   reading {mine}")
        stored.append({**case, "reference": ref, "agree": same, **({"class": cls} if cls else {})})
    print(f"{len(cases)} cases, {agree} agree; the rest: {dict(pairs)}")
    if args.save:
        versions = {"virtualhome_eval": "0.1.1", "up_fast_downward": "0.4.1 (Fast Downward 23.06)"}
        command = f"python benchmarks/fuzz_tm_reading.py --cases {args.cases} --seed {args.seed}"
        save_cases(args.save, "transition modeling", command, versions, stored)
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    raise SystemExit(main())
