"""Output paths are checked before the work: directories, files and paths under files."""

from __future__ import annotations

from pathlib import Path

import pytest

from planproof.boundary import InputError, output_dir, output_file, write_text


def test_output_file(tmp_path: Path) -> None:
    a_file = tmp_path / "f.txt"
    a_file.write_text("x", encoding="utf-8")
    assert output_file(tmp_path / "new" / "out.jsonl") == tmp_path / "new" / "out.jsonl"
    with pytest.raises(InputError, match="is a directory") as info:
        output_file(tmp_path, source="--out")
    assert info.value.kind == "bad-output" and info.value.source == "--out"
    with pytest.raises(InputError, match="which is a file"):
        output_file(a_file / "deeper" / "out.jsonl")
    assert write_text(tmp_path / "sub" / "o.txt", "é").read_text(encoding="utf-8") == "é"
    with pytest.raises(InputError, match="cannot write"):
        write_text(tmp_path / "bad.txt", "\ud800")


def test_output_dir(tmp_path: Path) -> None:
    a_file = tmp_path / "f.txt"
    a_file.write_text("x", encoding="utf-8")
    assert output_dir(tmp_path / "a" / "b").is_dir()
    with pytest.raises(InputError, match="is a file, not a directory"):
        output_dir(a_file)
    with pytest.raises(InputError, match="which is a file"):
        output_dir(a_file / "sub")


def test_write_text_replaces_a_file_atomically(tmp_path: Path) -> None:
    """A reader of the old file keeps reading the old complete text while the new one is
    written (a rename, not a truncation in place, as ``evaluate housekeep
    --write-episodes``, ``prompts --output`` and ``report`` once did); no temporary file
    is left behind, and a failed write leaves the old file whole."""
    target = tmp_path / "episodes.jsonl"
    target.write_text("old line 1\nold line 2\n", encoding="utf-8")
    with target.open(encoding="utf-8") as reader:
        write_text(target, "new\n", source="--write-episodes")
        assert reader.read() == "old line 1\nold line 2\n"
    assert target.read_text(encoding="utf-8") == "new\n"
    with pytest.raises(InputError, match="cannot write"):
        write_text(target, "half\n\ud800", source="--write-episodes")
    assert target.read_text(encoding="utf-8") == "new\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["episodes.jsonl"]
