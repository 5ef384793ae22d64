"""Output paths are checked before the work: directories, files and paths under files."""

from __future__ import annotations

from collections.abc import Iterator
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


@pytest.mark.parametrize("durable", [False, True])
def test_replace_bytes_is_all_or_nothing(tmp_path: Path, durable: bool) -> None:
    """The one atomic write (results and the data cache): parents created, the file
    readable by the group, and a write that fails midway leaves the old file and no
    temporary behind."""
    from planproof.boundary import replace_bytes, replace_lines

    target = tmp_path / "new" / "dir" / "f.bin"
    replace_bytes(target, (b"old", b"\x00\xff"), durable=durable)
    assert target.read_bytes() == b"old\x00\xff"
    assert target.stat().st_mode & 0o777 == 0o644

    def failing() -> Iterator[str]:
        yield "half"
        raise RuntimeError("killed")

    with pytest.raises(RuntimeError, match="killed"):
        replace_lines(target, failing(), durable=durable)
    with pytest.raises(UnicodeEncodeError):
        replace_lines(target, ["ok", "\ud800"], durable=durable)
    assert target.read_bytes() == b"old\x00\xff"
    assert sorted(p.name for p in target.parent.iterdir()) == ["f.bin"]
