"""The hostile-input probe (``tools/probe_hostile.py``) reaches every command and every
argument of the CLI, and judges a case the way issue 18 asks. The probe itself takes
minutes; a handful of its cases run here, and ``tests/test_hostile_inputs.py`` keeps a
fast in-process subset of it."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from planproof.cli import build_parser
from tools.probe_hostile import (
    FILE_BYTES,
    Case,
    cli_cases,
    first_error_line,
    judge,
    leaf_commands,
    make_fixtures,
    run_case,
    slots,
)


def _every_command(parser: argparse.ArgumentParser) -> set[tuple[str, ...]]:
    """The command paths, found by asking argparse for each level's choices (not by the
    probe's own walk)."""
    out: set[tuple[str, ...]] = set()
    stack: list[tuple[tuple[str, ...], argparse.ArgumentParser]] = [((), parser)]
    while stack:
        path, p = stack.pop()
        subs = [a for a in p._actions if isinstance(a, argparse._SubParsersAction)]
        if not subs:
            out.add(path)
        for a in subs:
            stack.extend(((*path, n), sp) for n, sp in a.choices.items())
    return out


def test_every_command_and_every_argument_is_probed() -> None:
    parser = build_parser()
    commands = _every_command(parser)
    assert set(leaf_commands(parser)) == commands and len(commands) >= 20
    names = [c.name for c in cli_cases()]
    assert len(names) == len(set(names)) and len(names) > 1000
    for command, sub in leaf_commands(parser).items():
        label = " ".join(command)
        assert f"{label} | base" in names and f"{label} | no arguments" in names
        for action in sub._actions:
            if action.nargs == 0 or action.dest in {"help", "json", "json_global", "api_base"}:
                continue
            option = next((o for o in action.option_strings if o.startswith("--")), None)
            if option is not None:
                assert any(n.startswith(f"{label} | {option} | ") for n in names), (label, option)


def test_arguments_are_classified_by_their_parser() -> None:
    parser = build_parser()
    kinds = {
        (" ".join(s.command), s.option): s.kind
        for c, p in leaf_commands(parser).items()
        for s in slots(c, p)
    }
    assert kinds["ltl sat", "--timeout"] == "number"
    assert kinds["ltl check", "--trace"] == "input"
    assert kinds["evaluate teach", "#0"] == "input"
    assert kinds["evaluate teach", "--output"] == "output"
    assert kinds["evaluate housekeep", "--write-episodes"] == "output"  # written, not read
    assert kinds["run", "--temperature"] == "number"
    assert kinds["evaluate action-sequencing", "--dataset"] == "choice"
    assert kinds["ltl entails", "#1"] == "text"


@pytest.mark.parametrize(
    ("stderr", "first"),
    [
        ("planproof: error: x\n", "planproof: error: x"),
        (
            "usage: planproof ltl sat [-h]\n     [--json]\nplanproof: error: y\n",
            "planproof: error: y",
        ),
        ("planproof: warning: 3 skipped\n\nplanproof: error: z\n", "planproof: error: z"),
        ("Traceback (most recent call last):\n", "Traceback (most recent call last):"),
    ],
)
def test_the_line_that_must_carry_the_error(stderr: str, first: str) -> None:
    assert first_error_line(stderr) == first


def test_how_a_case_is_judged() -> None:
    case = Case("x", ("ltl", "parse", "--file", "b"), "binary", kind="input")
    assert judge(case, 2, "planproof: error: binary data\n", False) == ("pass", "")
    assert judge(case, 0, "", False)[0] == "suspect"
    assert judge(case, 1, "", True)[0] == "fail"
    assert judge(case, 2, "error: no prefix\n", False)[0] == "fail"
    assert judge(case, 3, "", False) == ("fail", "exit status 3")
    name = Case("y", ("ltl", "sat", "--objects", "nan"), "nan", kind="text")
    assert judge(name, 0, "", False) == ("pass", "")  # "nan" is a fine object name
    traceback = "Traceback (most recent call last):\n  ValueError: x\n"
    assert judge(case, 1, traceback, False)[0] == "fail"


SAMPLE = (
    "ltl check | --trace | utf16-no-bom",
    "ltl sat | --timeout | nan",
    "evaluate teach | #0 | deep-nesting",
    "evaluate teach | --output | under-a-file",
    "ltl parse | #0 | undecodable",
    "report | #0 | directory",
)


def test_a_sample_of_the_probe_passes(tmp_path: Path) -> None:
    """Six cases as the probe runs them: a fresh process each, judged by its rules."""
    small = {"utf16-no-bom", "deep-nesting"}
    make_fixtures(tmp_path, only=small)
    assert {p.name for p in tmp_path.iterdir()} >= small
    assert not (tmp_path / "ten-mb-text").exists() and set(FILE_BYTES) > small
    cases = {c.name: c for c in cli_cases()}
    for name in SAMPLE:
        result = run_case(cases[name], tmp_path, bound=300)
        assert result.status == "pass", (name, result.why, result.stderr_head)


def test_verify_cases_reach_the_cases_file(tmp_path: Path) -> None:
    """``verify --cases`` with ``--domain`` is refused before the file is opened, so the
    probe drops the options ``--cases`` stands instead of: each case reads its file."""
    cases = [c for c in cli_cases() if c.name.startswith("verify | --cases | ")]
    assert len(cases) == len(FILE_BYTES) + 7  # every file and every special path
    for case in cases:
        assert not {"--domain", "--problem", "--plan"} & set(case.argv), case.argv
    make_fixtures(tmp_path, only={"json-lines-mixed"})
    by_name = {c.name: c for c in cases}
    result = run_case(by_name["verify | --cases | json-lines-mixed"], tmp_path, bound=300)
    assert result.status == "pass" and result.exit_code == 2, result.why
    assert result.stderr_head.startswith(
        "planproof: error: 3 of 3 case(s) are bad input, first line 1"
    ), result.stderr_head


@pytest.mark.parametrize("content", ["empty", "whitespace"])
def test_an_empty_cases_file_says_so_first(tmp_path: Path, content: str) -> None:
    """Found by the probe's third run: the counts line came before the error line."""
    make_fixtures(tmp_path, only={content})
    case = {c.name: c for c in cli_cases()}[f"verify | --cases | {content}"]
    result = run_case(case, tmp_path, bound=300)
    assert result.status == "pass", result.why
    assert result.stderr_head.startswith("planproof: error: no cases to verify")
