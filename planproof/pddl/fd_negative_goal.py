"""Whether Fast Downward 23.06's translator stops on a task's negative goal.

FD 23.06 (the reference's planner for transition modeling) encodes each group of mutually
exclusive atoms its invariant synthesis finds as one finite-domain variable with a value
per atom plus "none of those". A negated goal atom ``(not p)`` becomes "the variable of
``p`` takes any of its other values"; when that is more than one value and no other goal
literal on the same variable narrows it to one, the goal is a disjunction, and 23.06's
``translate_task`` stops at ``assert len(goal_dict_list) == 1, "Negative goal not
supported"`` (the driver's exit 30): the reference gets no plan. Newer translators (the
one planproof runs) take the atoms negated in the goal out of the groups before choosing
them, so they always get a binary variable and the task is planned.

The test here runs planproof's installed translator up to its choice of groups, but
chooses them as 23.06 did (with no atom taken out), then applies 23.06's reading of the
goal (positive literals first, each negated one narrowing a condition already on its
variable, else adding all the variable's other values). FD's modules are run in a child
process, as the translator itself is; nothing of FD is imported by planproof. The
invariant synthesis is the installed version's: on the published BEHAVIOR answers its
groups for the negated goal atoms agree with 23.06's (docs/reproduce.md, "BEHAVIOR
transition modeling").
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass

from planproof.pddl.fd_process import fast_downward_script

REASON = "negative-goal-unsupported"
CPU_SECONDS = 20
"""The child's CPU limit (grounding a BEHAVIOR task takes well under a second)."""

_DRIVER = """
import json, sys
from fast_downward.translate import options
options.set_options(sys.argv[1:3])
from fast_downward.translate import fact_groups, instantiate, normalize, pddl_parser
task = pddl_parser.open(domain_filename=sys.argv[1], problem_filename=sys.argv[2])
normalize.normalize(task)
reachable, atoms, _actions, goal, _axioms, params = instantiate.explore(task)
if not reachable or goal is None:
    print(json.dumps({"groups": None, "goal": None}))
    sys.exit(0)
groups, _mutex, _key = fact_groups.compute_groups(task, atoms, params, set())
print(json.dumps({
    "groups": [[str(a) for a in g] for g in groups],
    "goal": [[lit.negated, str(lit.negate() if lit.negated else lit)] for lit in goal],
}))
"""


@dataclass(frozen=True)
class GoalEncoding:
    """The groups 23.06 would choose (each a variable: its atoms, then "none of those")
    and the grounded goal literals ``(negated, atom)``, atoms as FD prints them."""

    groups: tuple[tuple[str, ...], ...]
    goal: tuple[tuple[bool, str], ...]


class GoalEncodingError(RuntimeError):
    """The translator could not be run or its answer could not be read."""


def disjunctive_negative_goal(enc: GoalEncoding) -> str | None:
    """The first negated goal atom that leaves its variable more than one value (23.06
    stops on it), or None when 23.06 reads the goal as one condition."""
    where: dict[str, tuple[int, int]] = {}
    for var, group in enumerate(enc.groups):
        for val, atom in enumerate(group):
            where.setdefault(atom, (var, val))
    ranges = [len(g) + 1 for g in enc.groups]
    condition: dict[int, set[int]] = {}
    for negated, atom in enc.goal:
        if not negated and atom in where:
            var, val = where[atom]
            condition[var] = {val}
    culprit: dict[int, str] = {}
    for negated, atom in enc.goal:
        if not negated or atom not in where:
            continue
        var, val = where[atom]
        others = set(range(ranges[var])) - {val}
        if var in condition:
            condition[var] &= others
        else:
            condition[var] = others
            culprit[var] = atom
    for var, vals in condition.items():
        if len(vals) > 1:
            return culprit.get(var, "")
    return None


def goal_encoding(domain_text: str, problem_text: str) -> GoalEncoding | None:
    """The task's goal encoding as 23.06 chooses it (module docstring); None when the
    goal is unreachable even relaxed (no variable is built then)."""
    script = fast_downward_script()
    if script is None:
        raise GoalEncodingError("up-fast-downward is not installed")
    bin_dir = os.path.join(os.path.dirname(script), "builds", "release", "bin")
    env = dict(os.environ)
    env["PYTHONPATH"] = f"{bin_dir}:{env.get('PYTHONPATH', '')}".strip(":")
    with tempfile.TemporaryDirectory(prefix="planproof-fdgoal-") as work:
        paths = []
        for name, text in (("domain.pddl", domain_text), ("problem.pddl", problem_text)):
            paths.append(os.path.join(work, name))
            with open(paths[-1], "w", encoding="utf-8") as fh:
                fh.write(text)
        out = _run([sys.executable, "-S", "-c", _DRIVER, *paths], env)
    return _read(out)


def _run(cmd: Sequence[str], env: dict[str, str]) -> str:
    import resource

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_CPU, (CPU_SECONDS, CPU_SECONDS + 1))

    try:
        proc = subprocess.run(
            list(cmd),
            env=env,
            capture_output=True,
            text=True,
            timeout=10 * CPU_SECONDS,
            preexec_fn=limit,
            check=False,
        )
    except subprocess.TimeoutExpired as exc:
        raise GoalEncodingError("the translator did not finish") from exc
    if proc.returncode != 0:
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-1:] or [""]
        raise GoalEncodingError(f"exit {proc.returncode}: {tail[0]}")
    return proc.stdout


def _read(out: str) -> GoalEncoding | None:
    lines = [ln for ln in out.splitlines() if ln.startswith("{")]
    try:
        data = json.loads(lines[-1])
    except (IndexError, json.JSONDecodeError) as exc:
        raise GoalEncodingError("no goal encoding in the translator's output") from exc
    if data["groups"] is None:
        return None
    return GoalEncoding(
        tuple(tuple(g) for g in data["groups"]),
        tuple((bool(n), str(a)) for n, a in data["goal"]),
    )


def negative_goal_unsupported(domain_text: str, problem_text: str) -> str | None:
    """The negated goal atom FD 23.06's translator stops on for this task, or None."""
    if "(not" not in problem_text.split(":goal", 1)[-1].replace("( not", "(not"):
        return None  # no negated literal in the goal: nothing to test, no child run
    enc = goal_encoding(domain_text, problem_text)
    return None if enc is None else disjunctive_negative_goal(enc)
