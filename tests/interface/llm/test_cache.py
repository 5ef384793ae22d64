"""The SQLite response cache on real files: round trips, persistence, WAL, corrupt files,
another process writing at the same time, and a writer killed with SIGKILL."""

from __future__ import annotations

import itertools
import json
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from planproof.interface.llm import (
    CacheError,
    Completion,
    Request,
    ResponseCache,
    Usage,
    default_cache_path,
)
from tests.interface.llm.support import FAKE_KEY


def _completion(text: str = "walk_to(kitchen.1)", **fields: object) -> Completion:
    base: dict[str, object] = {
        "text": text,
        "usage": Usage(120, 7),
        "cost_usd": 0.0004,
        "attempts": 2,
        "seconds": 1.25,
        "finish_reason": "stop",
    }
    base.update(fields)
    return Completion(**base)  # type: ignore[arg-type]


def test_put_then_get_returns_the_answer_marked_cached(tmp_path: Path) -> None:
    request = Request("openai/gpt-4o-mini", "Plan: make coffee.")
    with ResponseCache(tmp_path / "c.sqlite3") as cache:
        assert cache.get(request) is None
        assert request not in cache
        cache.put(request, _completion())
        got = cache.get(request)
        assert request in cache
        assert len(cache) == 1
    assert got is not None
    assert got.cached is True
    assert got == _completion(cached=True)
    other = Request("openai/gpt-4o-mini", "Plan: make coffee.", temperature=0.5)
    with ResponseCache(tmp_path / "c.sqlite3") as cache:
        assert cache.get(other) is None


def test_answers_survive_reopening_and_unknown_cost_stays_unknown(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "dir" / "responses.sqlite3"
    requests = [Request("openai/stub", f"prompt {i}") for i in range(5)]
    with ResponseCache(path) as cache:
        for i, request in enumerate(requests):
            cache.put(request, _completion(f"answer {i}", cost_usd=None))
    with ResponseCache(path) as cache:
        assert len(cache) == 5
        for i, request in enumerate(requests):
            got = cache.get(request)
            assert got is not None
            assert got.text == f"answer {i}"
            assert got.cost_usd is None


def test_storing_a_key_again_replaces_its_answer(tmp_path: Path) -> None:
    request = Request("openai/gpt-4o-mini", "p")
    with ResponseCache(tmp_path / "c.sqlite3") as cache:
        cache.put(request, _completion("first"))
        cache.put(request, _completion("second", attempts=1))
        got = cache.get(request)
        assert got is not None
        assert (got.text, got.attempts) == ("second", 1)
        assert len(cache) == 1
        assert cache.stats()["tokens"] == {"prompt": 120, "completion": 7}


def test_the_file_is_in_wal_mode(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite3"
    with ResponseCache(path) as cache:
        assert cache.stats()["journal_mode"] == "wal"
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_stats_sum_tokens_and_known_costs(tmp_path: Path) -> None:
    with ResponseCache(tmp_path / "c.sqlite3") as cache:
        empty = cache.stats()
        cache.put(Request("a/x", "1"), _completion(usage=Usage(10, 1), cost_usd=0.5))
        cache.put(Request("a/x", "2"), _completion(usage=Usage(20, 2), cost_usd=0.25))
        cache.put(Request("b/y", "3"), _completion(usage=Usage(30, 3), cost_usd=None))
        stats = cache.stats()
    assert empty["rows"] == 0
    assert empty["cost_usd"] is None
    assert stats["rows"] == 3
    assert stats["models"] == {"a/x": 2, "b/y": 1}
    assert stats["tokens"] == {"prompt": 60, "completion": 6}
    assert stats["cost_usd"] == pytest.approx(0.75)
    assert stats["rows_without_cost"] == 1


def test_rows_hold_the_request_but_no_credentials(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", FAKE_KEY)
    path = tmp_path / "c.sqlite3"
    request = Request("openai/gpt-4o-mini", "Plan: tidy the room.", seed=3)
    with ResponseCache(path) as cache:
        cache.put(request, _completion())
    raw = b"".join(p.read_bytes() for p in tmp_path.glob("c.sqlite3*"))
    assert FAKE_KEY.encode() not in raw
    assert b"Plan: tidy the room." in raw
    with sqlite3.connect(path) as db:
        (stored,) = db.execute("SELECT request FROM responses").fetchone()
    assert Request.from_dict(json.loads(stored.decode())) == request


@pytest.mark.parametrize(
    "content",
    [
        b"this is not a database at all, just some text\n" * 50,
        b"SQLite format 3\x00" + b"\xff" * 4000,
    ],
    ids=["text", "truncated-header"],
)
def test_a_corrupt_file_is_a_cache_error(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "broken.sqlite3"
    path.write_bytes(content)
    with pytest.raises(CacheError, match=r"broken\.sqlite3"):
        ResponseCache(path)
    assert path.read_bytes() == content  # left untouched for the user to inspect


def test_a_foreign_sqlite_file_is_a_cache_error(tmp_path: Path) -> None:
    path = tmp_path / "other.sqlite3"
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE responses (id INTEGER PRIMARY KEY, body TEXT)")
    with pytest.raises(CacheError, match="lacks columns"):
        ResponseCache(path)


def test_another_cache_format_is_a_cache_error(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite3"
    ResponseCache(path).close()
    with sqlite3.connect(path) as db:
        db.execute("UPDATE meta SET value = '999' WHERE name = 'format'")
    with pytest.raises(CacheError, match="format '999'"):
        ResponseCache(path)


def test_an_unwritable_location_is_a_cache_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(CacheError, match="cannot create"):
        ResponseCache(blocker / "sub" / "c.sqlite3")


def test_default_path_follows_the_cache_dir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PLANPROOF_CACHE_DIR", str(tmp_path / "pp"))
    assert default_cache_path() == tmp_path / "pp" / "llm" / "responses.sqlite3"


_SEEDS = itertools.count()


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    prompt=st.text(max_size=300),
    text=st.text(max_size=2000)
    | st.sampled_from(["", "\x00", "a\x00b", "\ud800 lone", "é" * 5000]),
    usage=st.builds(Usage, st.integers(0, 2**62), st.integers(0, 2**62)),
    cost=st.none() | st.floats(0, 1e9, allow_nan=False),
    finish=st.none() | st.sampled_from(["stop", "length", "content_filter"]),
)
def test_round_trip_of_arbitrary_answers(
    tmp_path: Path,
    *,
    prompt: str,
    text: str,
    usage: Usage,
    cost: float | None,
    finish: str | None,
) -> None:
    # one file for all examples (creating files costs fsyncs); the seed keeps keys fresh
    request = Request("openai/gpt-4o-mini", prompt, seed=next(_SEEDS))
    completion = Completion(text, usage, cost, 1, 0.5, finish_reason=finish)
    with ResponseCache(tmp_path / "prop.sqlite3") as cache:
        cache.put(request, completion)
    with ResponseCache(tmp_path / "prop.sqlite3") as cache:
        got = cache.get(request)
    assert got is not None
    assert got == Completion(text, usage, cost, 1, 0.5, cached=True, finish_reason=finish)


def test_a_huge_answer_round_trips(tmp_path: Path) -> None:
    text = "grab(cup.1)\n" * 500_000  # 6 MB
    request = Request("openai/gpt-4o-mini", "huge")
    with ResponseCache(tmp_path / "c.sqlite3") as cache:
        cache.put(request, _completion(text))
        got = cache.get(request)
    assert got is not None
    assert got.text == text


_WRITER = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from planproof.interface.llm import Completion, Request, ResponseCache, Usage
    path, tag, count = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3])
    with ResponseCache(path) as cache:
        for i in range(count):
            cache.put(Request("m/x", f"{tag} {i}"), Completion(f"{tag} answer {i}",
                      Usage(1, 1), None, 1, 0.0))
            print(i, flush=True)
        if count == 0:
            i = 0
            while True:  # write until killed
                cache.put(Request("m/x", f"{tag} {i}"), Completion(f"{tag} answer {i}",
                          Usage(1, 1), None, 1, 0.0))
                print(i, flush=True)
                i += 1
    """
)


def test_two_processes_write_the_same_file(tmp_path: Path) -> None:
    path = tmp_path / "shared.sqlite3"
    ResponseCache(path).close()
    count = 400
    other = subprocess.Popen(
        [sys.executable, "-c", _WRITER, str(path), "child", str(count)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert other.stdout is not None
    assert other.stdout.readline().strip() == "0"  # the child is writing now: overlap
    with ResponseCache(path) as cache:
        for i in range(count):
            cache.put(Request("m/x", f"parent {i}"), _completion(f"parent answer {i}"))
            assert cache.get(Request("m/x", f"parent {i}")) is not None
        seen_during = len(cache)
    out, err = other.communicate(timeout=60)
    assert other.returncode == 0, err
    assert out.split()[-1] == str(count - 1)
    assert count < seen_during <= 2 * count  # the parent saw some of the child's rows
    with ResponseCache(path) as cache:
        assert len(cache) == 2 * count
        for tag in ("parent", "child"):
            for i in (0, count // 2, count - 1):
                got = cache.get(Request("m/x", f"{tag} {i}"))
                assert got is not None
                assert got.text == f"{tag} answer {i}"
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def test_a_writer_killed_mid_run_loses_no_committed_answer(tmp_path: Path) -> None:
    path = tmp_path / "killed.sqlite3"
    proc = subprocess.Popen(
        [sys.executable, "-c", _WRITER, str(path), "w", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    acknowledged = -1
    for line in proc.stdout:
        acknowledged = int(line)
        if acknowledged >= 200:
            break
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL
    with ResponseCache(path) as cache:
        # every put that returned before the kill is there (later ones may be too)
        assert len(cache) >= acknowledged + 1
        for i in range(acknowledged + 1):
            got = cache.get(Request("m/x", f"w {i}"))
            assert got is not None, i
            assert got.text == f"w answer {i}"
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
