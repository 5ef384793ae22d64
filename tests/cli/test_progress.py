"""Long commands show a progress bar (or a spinner) on a terminal and nothing in a pipe
(issue 18): a person never waits on a silent screen. Each command runs on a small
input, so the test bounds work; what it checks is that the bar is drawn at all."""

from __future__ import annotations

import pytest

from planproof.commands.progress import running_total
from tests.cli.helpers import ROOT, planproof, planproof_on_a_terminal

EXAMPLES = ROOT / "planproof" / "examples"
PDDL = EXAMPLES / "pddl"

LONG_COMMANDS: dict[str, tuple[list[str], str]] = {
    "plan": (
        ["plan", "--domain", str(PDDL / "virtualhome.pddl"), "--problem",
         str(PDDL / "browse_internet.pddl"), "--engine", "pyperplan", "--timeout", "120"],
        "planning with pyperplan (time limit 120 s)",
    ),
    "ltl sat": (["ltl", "sat", "on(a.1) and not on(b.2)"], "solving with Z3 (time limit 10 s)"),
    "ltl entails": (
        ["ltl", "entails", "on(a.1)", "on(a.1) or on(b.2)", "--timeout", "30"],
        "solving with Z3 (time limit 30 s)",
    ),
    "evaluate teach": (
        ["evaluate", "teach", str(EXAMPLES / "teach" / "coffee.json")],
        "replaying 1 episodes",
    ),
    "evaluate housekeep": (
        ["evaluate", "housekeep", str(EXAMPLES / "housekeep" / "real_episodes.jsonl"),
         "--workers", "1"],
        "scoring ",
    ),
    "evaluate partnr": (["evaluate", "partnr", "--workers", "1"], "replaying "),
}  # fmt: skip


@pytest.mark.parametrize("command", sorted(LONG_COMMANDS))
def test_a_long_command_draws_progress_on_a_terminal_only(command: str, tmp_path: object) -> None:
    argv, title = LONG_COMMANDS[command]
    argv = [*argv, "--json"]
    on_tty, terminal = planproof_on_a_terminal(*argv)
    assert on_tty.code in (0, 1), terminal[-500:]
    assert title in terminal, terminal[-500:]
    piped = planproof(*argv)
    assert piped.code == on_tty.code and title not in piped.err


def test_a_running_total_advances_by_the_difference() -> None:
    steps: list[int] = []
    to = running_total(lambda n=1: steps.append(n))
    for total in (3, 3, 10, 12):
        to(total)
    assert steps == [3, 0, 7, 2] and sum(steps) == 12
