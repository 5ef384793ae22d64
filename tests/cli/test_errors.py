"""One presentation of bad input for every command: the ``planproof: error:`` prefix on
stderr, exit status 2, no traceback and no exception class name; with ``--json`` (before or
after the subcommand) one JSON object on stdout; no BrokenPipeError when piped into head."""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from planproof.cli import USAGE, build_parser
from tests.cli.helpers import env, planproof, planproof_into_closed_pipe

CLASS_NAME = re.compile(r"\b[A-Z][A-Za-z]*(Error|Exception)\b|Traceback")


def bad_inputs(tmp: Path) -> list[list[str]]:
    """One bad input per command family (the files named do not exist or are not JSON)."""
    junk = tmp / "junk.json"
    junk.write_text("{not json", encoding="utf-8")
    missing = str(tmp / "missing.json")
    return [
        ["ltl", "parse", "on(a.1"],
        ["ltl", "sat", "a(b.1) then c(d.1)"],
        ["ltl", "check", "--trace", missing],
        ["verify", "--domain", missing, "--problem", missing, "--plan", missing],
        ["plan", "--domain", missing, "--problem", missing, "--timeout", "0"],
        ["evaluate", "teach", str(junk)],
        ["evaluate", "housekeep", missing],
        ["evaluate", "partnr", "--plans", missing],
        ["report", missing],
        ["ltl", "parse"],  # a usage error
    ]


def test_every_error_has_one_prefix_and_no_class_name(tmp_path: Path) -> None:
    for argv in bad_inputs(tmp_path):
        r = planproof(*argv)
        assert r.code == 2, (argv, r)
        assert r.out == "", (argv, r.out)
        lines = [ln for ln in r.err.splitlines() if ln.startswith("planproof")]
        assert any(ln.startswith("planproof: error: ") for ln in lines), (argv, r.err)
        assert not CLASS_NAME.search(r.err), (argv, r.err)


@pytest.mark.parametrize("where", ["first", "group", "last"])
def test_json_is_accepted_before_or_after_the_subcommand(where: str, tmp_path: Path) -> None:
    argv = ["ltl", "parse", "on(a.1"]
    placed = {
        "first": ["--json", *argv],
        "group": ["ltl", "--json", "parse", "on(a.1"],
        "last": [*argv, "--json"],
    }[where]
    r = planproof(*placed)
    data = json.loads(r.out)
    assert r.code == 2 and r.err == ""
    assert data["ok"] is False and data["error"] == "unexpected-end"
    assert "end of formula" in data["message"] and data["column"] == 7
    ok = planproof(*("on(a.1)" if a == "on(a.1" else a for a in placed))
    assert ok.code == 0 and json.loads(ok.out)["formula"] == "on(a.1)"


def test_json_errors_share_one_shape(tmp_path: Path) -> None:
    for argv in bad_inputs(tmp_path)[:-1]:
        r = planproof("--json", *argv)
        data = json.loads(r.out)
        assert r.code == 2, argv
        assert data["ok"] is False and isinstance(data["error"], str), (argv, data)
        assert data["message"] and not CLASS_NAME.search(data["message"]), (argv, data)


def test_no_broken_pipe_traceback_when_the_reader_is_gone() -> None:
    r = planproof_into_closed_pipe("ltl", "parse", "--json", "on(a.1) and off(b.2)")
    assert "BrokenPipeError" not in r.err and "Traceback" not in r.err, r.err
    assert r.code == 0


def _commands(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()) -> Iterator[Any]:
    subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if not subs:
        yield path, parser
    for action in subs:
        for name, sub in action.choices.items():
            yield from _commands(sub, (*path, name))


def test_every_command_and_option_has_help_with_exit_statuses_and_an_example() -> None:
    commands = list(_commands(build_parser()))
    assert len(commands) >= 19
    for path, parser in commands:
        assert path in USAGE, f"planproof {' '.join(path)}: no exit statuses/example in USAGE"
        assert "exit status: 0" in parser.epilog and "example:\n  planproof " in parser.epilog
        for action in parser._actions:
            assert action.help, f"planproof {' '.join(path)} {action.dest}: no help text"
    r = planproof("evaluate", "action-sequencing", "--help")
    assert r.code == 0 and "exit status: 0 evaluated" in r.out and "0-based in JSON" in r.out


def test_help_starts_light() -> None:
    """``planproof --help`` imports no heavy library (start-up stays about 0.1 s)."""
    code = (
        "import sys\n"
        "from planproof.cli import main\n"
        "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
        "heavy = [m for m in ('rich', 'z3', 'litellm', 'unified_planning', 'ray', 'lark')"
        " if m in sys.modules]\n"
        "print(heavy)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env(), check=True
    )
    assert out.stdout.strip().splitlines()[-1] == "[]"
