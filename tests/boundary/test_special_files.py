"""Only regular files are read: a FIFO, a device, a directory or a socket is refused at
once, naming the path, by the one helper every reader opens files with (issue 30: a
FIFO blocked ``verify``/``plan``/``report`` forever, ``/dev/zero`` in a case ran out of
memory)."""

from __future__ import annotations

import os
import socket
import time
from pathlib import Path

import pytest

from planproof.boundary import InputError, open_regular, read_bytes, read_json, read_text


def _fifo(tmp_path: Path) -> Path:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    return fifo


@pytest.mark.parametrize("reader", [read_bytes, read_text, read_json])
def test_a_fifo_is_refused_without_blocking(tmp_path: Path, reader: object) -> None:
    fifo = _fifo(tmp_path)
    start = time.process_time()
    with pytest.raises(InputError) as info:
        reader(fifo)  # type: ignore[operator]
    assert info.value.kind == "not-a-file" and info.value.source == str(fifo)
    assert "FIFO" in info.value.message
    assert time.process_time() - start < 1.0


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom", "/dev/null", "/dev/full"])
def test_devices_are_refused_not_read(device: str) -> None:
    if not Path(device).exists():
        pytest.skip(f"{device} absent")
    with pytest.raises(InputError, match="character device, not a regular file") as info:
        read_bytes(device)
    assert info.value.source == device


def test_a_directory_and_a_socket_are_named(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="is a directory, not a regular file"):
        open_regular(tmp_path)
    sock_path = tmp_path / "s.sock"
    with socket.socket(socket.AF_UNIX) as s:
        s.bind(str(sock_path))
        with pytest.raises(InputError, match="is a socket, not a regular file"):
            read_text(sock_path)


def test_a_symlink_to_a_regular_file_is_read_and_to_a_fifo_is_refused(tmp_path: Path) -> None:
    real = tmp_path / "real.txt"
    real.write_text("ok", encoding="utf-8")
    (tmp_path / "link").symlink_to(real)
    assert read_text(tmp_path / "link") == "ok"
    (tmp_path / "plink").symlink_to(_fifo(tmp_path))
    with pytest.raises(InputError, match="FIFO"):
        read_text(tmp_path / "plink")
