"""One presentation of bad input for every command: the ``planproof: error:`` prefix on
stderr, exit status 2, no traceback and no exception class name; with ``--json`` (before or
after the subcommand) one JSON object on stdout; no BrokenPipeError when piped into head."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.cli.helpers import planproof, planproof_into_closed_pipe

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
