"""``reproduce eai`` on a copy of the published answers with broken files (issue 29: "A
published file that is corrupt or truncated gets a clear error naming the file, and the
other cells are still scored"), end to end through the command: every module, both
datasets, without the planner (the planner does not read the file)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from planproof.data import DataUnavailableError
from planproof.data.published import published_files
from tests.helpers import needed_resource

pytestmark = pytest.mark.data

BAD = "llama-3-8b-chat"
GOOD = "gpt-4o-2024-05-13"


def _cache_copy(tmp_path: Path) -> Path:
    """A planproof cache whose files are links to the session cache's data and published
    answers (nothing is fetched, nothing written there), with a reproduce cell cache of
    its own."""
    from planproof.data.cache import cache_dir

    source, copy = cache_dir(), tmp_path / "cache"
    for name in ("eai", "published", "compiled"):
        for src in (source / name).rglob("*") if (source / name).is_dir() else ():
            if src.is_file() and not src.name.endswith((".lock", ".tmp", ".sqlite3")):
                dst = copy / src.relative_to(source)
                dst.parent.mkdir(parents=True, exist_ok=True)
                dst.symlink_to(src.resolve())
    return copy


def _break(path: Path, how: str) -> str:
    """Replace the link ``path`` by a broken copy of its file; the words of the error."""
    text = path.read_text(encoding="utf-8")
    path.unlink()
    if how == "truncated":
        path.write_text(text[: len(text) // 2], encoding="utf-8")
        return "not JSON"
    if how == "binary":
        path.write_bytes(b"\x00\xff\xfe\x01 junk")
        return "binary data"
    if how == "object":
        path.write_text(json.dumps({"answers": json.loads(text)}), encoding="utf-8")
        return "no answer in it"
    if how == "invalid":
        path.write_text(text.replace("{", "{{", 1), encoding="utf-8")
        return "not a readable JSON file"
    rows = json.loads(text)  # "rows": every third row is not an answer
    rows = [{"no": "identifier"} if i % 3 == 0 else r for i, r in enumerate(rows)]
    path.write_text(json.dumps(rows), encoding="utf-8")
    return f"{len(rows[::3])} of {len(rows)} rows are not answers"


def test_broken_published_files_fail_their_own_cells_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from planproof.cli import main

    needed_resource(published_files, DataUnavailableError, "published EAI outputs")
    monkeypatch.setenv("PLANPROOF_CACHE_DIR", str(_cache_copy(tmp_path)))
    files = {(f.module, f.dataset): f.path for f in published_files() if f.model == BAD}
    broken = {
        ("goal-interpretation", "virtualhome"): "truncated",
        ("action-sequencing", "virtualhome"): "binary",
        ("subgoal-decomposition", "virtualhome"): "object",
        ("transition-modeling", "behavior"): "invalid",
        ("transition-modeling", "virtualhome"): "rows",
    }
    words = {key: _break(files[key], how) for key, how in broken.items()}
    out = tmp_path / "out"
    argv = ["--json", "reproduce", "eai", "--models", BAD, GOOD, "--no-planner"]
    argv += ["--datasets", "virtualhome", "behavior", "--workers", "1", "--output", str(out)]
    status = main(argv)
    captured = capsys.readouterr()
    assert status == 1  # done, but some published file could not be scored (docs/reproduce.md)
    warnings = [line for line in captured.err.splitlines() if line.startswith("planproof: warn")]
    for key, what in words.items():  # a warning naming each bad file and why
        hits = [w for w in warnings if str(files[key]) in w]
        assert hits and all(what in w for w in hits), (key, what, warnings)
    doc = json.loads(captured.out)
    assert doc == json.loads((out / "reproduce.json").read_text(encoding="utf-8"))
    failed = {(f["module"], f["dataset"], f["reading"]) for f in doc["failed"]}
    assert failed == {
        ("goal-interpretation", "virtualhome", ""),
        ("action-sequencing", "virtualhome", ""),
        ("action-sequencing", "virtualhome", "json.loads"),
        ("subgoal-decomposition", "virtualhome", ""),
        ("transition-modeling", "behavior", ""),
    }
    assert all(f["model"] == BAD and os.path.isabs(f["path"]) for f in doc["failed"])
    page = (out / "report.html").read_text(encoding="utf-8")
    for section, rows in doc["sections"].items():
        by = {r["model"]: r for r in rows}
        assert by[GOOD]["planproof"] and "failed" not in by[GOOD], section  # still scored
        if section.startswith("transition-modeling") and "behavior" not in section:
            assert by[BAD]["planproof"] and "failed" not in by[BAD]  # scored on its rows
        else:  # shown as failed, with why, never a silent gap
            assert not by[BAD]["planproof"] and str(files[BAD_KEY[section]]) in by[BAD]["failed"]
    assert 'class="failed"' in page and str(files[("transition-modeling", "virtualhome")]) in page
    assert any("rows are not answers" in n for n in doc["notes"])


BAD_KEY = {
    "goal-interpretation": ("goal-interpretation", "virtualhome"),
    "action-sequencing": ("action-sequencing", "virtualhome"),
    "action-sequencing/json.loads": ("action-sequencing", "virtualhome"),
    "subgoal-decomposition": ("subgoal-decomposition", "virtualhome"),
    "transition-modeling-behavior": ("transition-modeling", "behavior"),
    "transition-modeling-behavior/reference counting": ("transition-modeling", "behavior"),
}
"""A section → the broken file its BAD row comes from."""
