"""With ``--json``, argparse's usage errors (unknown option, missing argument, bad choice)
are one JSON object on stdout like every other error, on every subcommand; misspelt
options and choices get difflib's "did you mean" (issue 28, issue 30)."""

from __future__ import annotations

import argparse
import contextlib
import difflib
import io
import json

import pytest

from planproof.cli import build_parser, main


def _leaves() -> dict[tuple[str, ...], argparse.ArgumentParser]:
    out: dict[tuple[str, ...], argparse.ArgumentParser] = {}
    stack: list[tuple[tuple[str, ...], argparse.ArgumentParser]] = [((), build_parser())]
    while stack:
        path, p = stack.pop()
        subs = [a for a in p._actions if isinstance(a, argparse._SubParsersAction)]
        if not subs:
            out[path] = p
        for a in subs:
            stack.extend(((*path, n), sp) for n, sp in a.choices.items())
    return out


LEAVES = _leaves()


def _run(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    return code, out.getvalue(), err.getvalue()


def _one_json_error(argv: list[str]) -> dict[str, object]:
    code, out, err = _run(argv)
    assert code == 2, (argv, out, err)
    doc = json.loads(out)  # exactly one JSON document: json.loads refuses trailing text
    assert isinstance(doc, dict) and doc["ok"] is False and doc["error"] == "usage"
    assert err == "", err
    return doc


def _required(p: argparse.ArgumentParser) -> list[argparse.Action]:
    return [a for a in p._actions if a.required and a.nargs not in ("*", "?")]


def _with_choices(p: argparse.ArgumentParser) -> list[argparse.Action]:
    return [a for a in p._actions if a.choices and a.option_strings]


def test_every_command_is_covered() -> None:
    assert len(LEAVES) >= 20


@pytest.mark.parametrize("path", sorted(LEAVES), ids=" ".join)
@pytest.mark.parametrize("where", ["after", "before"])
def test_unknown_option_is_json_with_a_suggestion(path: tuple[str, ...], where: str) -> None:
    p = LEAVES[path]
    option = next(o for a in p._actions for o in a.option_strings if o == "--json")
    assert option
    argv = [*path, "--jsno-such-option", "--json"]
    if where == "before":
        argv = ["--json", *path, "--jsno-such-option"]
    doc = _one_json_error(argv)
    message = str(doc["message"])  # reported as unrecognized, or after a missing argument
    assert "--jsno-such-option: no such option" in message
    assert f"usage: planproof {' '.join(path)}" in str(doc["usage"])


@pytest.mark.parametrize("path", sorted(LEAVES), ids=" ".join)
def test_misspelt_option_names_the_closest(path: tuple[str, ...]) -> None:
    options = [
        o
        for a in LEAVES[path]._actions
        for o in a.option_strings
        if o.startswith("--") and len(o) > 6 and a.nargs != 0
    ]
    if not options:
        pytest.skip("no option long enough to misspell")
    real = options[0]
    typo = real[:3] + real[4] + real[3] + real[5:]  # two letters swapped
    closest = difflib.get_close_matches(typo, options, n=1)[0]
    doc = _one_json_error([*path, typo, "x", "--json"])
    assert f"{typo}: did you mean '{closest}'" in str(doc["message"])


@pytest.mark.parametrize(
    "path", sorted(p for p, sp in LEAVES.items() if _required(sp)), ids=" ".join
)
def test_missing_argument_is_json(path: tuple[str, ...]) -> None:
    doc = _one_json_error([*path, "--json"])
    assert "the following arguments are required" in str(doc["message"])


@pytest.mark.parametrize(
    "path", sorted(p for p, sp in LEAVES.items() if _with_choices(sp)), ids=" ".join
)
def test_bad_choice_is_json_with_did_you_mean(path: tuple[str, ...]) -> None:
    action = _with_choices(LEAVES[path])[0]
    choice = str(next(iter(action.choices)))  # type: ignore[arg-type]
    typo = choice[:-1] + ("x" if not choice.endswith("x") else "y")
    argv = [*path, action.option_strings[-1], typo, "--json"]
    doc = _one_json_error(argv)
    assert f"invalid choice: '{typo}'" in str(doc["message"])
    assert "did you mean" in str(doc["message"]) and repr(choice) in str(doc["message"])


def test_option_missing_its_value_and_unknown_command() -> None:
    doc = _one_json_error(["verify", "--json", "--cases"])
    assert doc["message"] == "argument --cases: expected one argument"
    doc = _one_json_error(["--json", "evaluat"])
    assert "did you mean 'evaluate'" in str(doc["message"])
    doc = _one_json_error(["--json", "evaluate", "actoin-sequencing"])
    assert "did you mean 'action-sequencing'" in str(doc["message"])


def test_without_json_the_error_is_on_stderr_with_usage() -> None:
    code, out, err = _run(["evaluate", "action-sequencing", "--datset", "virtualhome"])
    assert code == 2 and out == ""
    lines = err.splitlines()
    assert lines[0].startswith("usage: planproof evaluate action-sequencing")
    assert lines[-1] == (
        "planproof: error: the following arguments are required: --dataset; "
        "--datset: did you mean '--dataset'?"
    )
