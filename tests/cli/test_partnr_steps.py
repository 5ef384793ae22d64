"""``evaluate partnr`` counts steps from 1 in its text table and from 0 in its JSON, as
every other command does (docs/cli.md's conventions)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.helpers import planproof


def test_text_steps_are_one_based_and_json_steps_zero_based(tmp_path: Path) -> None:
    text = planproof("evaluate", "partnr", "--workers", "1", "--output", str(tmp_path))
    assert text.code == 0, text.err
    rows = [json.loads(x) for x in (tmp_path / "results.jsonl").read_text().splitlines()]
    failed = [r for r in rows if r["error"]]
    assert failed
    for r in failed:
        err = r["error"]
        line = next(x for x in text.out.splitlines() if r["plan"] in x and r["episode_id"] in x)
        assert f"{err['error_type']}@{err['step'] + 1}" in line
