"""The binary caches of built worlds: what is loaded equals what is built, stale or
damaged files are rebuilt, foreign code is never resolved, and atoms hash right in the
process that loads them."""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from planproof.boundary import replace_text
from planproof.data import cache
from planproof.data.cache import (
    cached_pickle,
    read_stamped_pickle,
    source_stamp,
    write_stamped_pickle,
)
from planproof.ltl.ast import Atom, Const
from planproof.ltl.trace import ground_atom
from planproof.simulators.core import Action, replay
from planproof.simulators.virtualhome.tasks import build_virtualhome_tasks, load_virtualhome_tasks

STAMP = {"format": "test", "version": 1}


def _builder(value: object, calls: list[int]) -> Callable[[], object]:
    def build() -> object:
        calls.append(1)
        return value

    return build


def test_a_cache_is_built_once_then_read(tmp_path: Path) -> None:
    path = tmp_path / "x.pickle"
    calls: list[int] = []
    value = {"atoms": frozenset({ground_atom("on", "cup.1", "table.2")}), "n": (1, 2)}
    assert cached_pickle(path, STAMP, _builder(value, calls)) == value
    assert cached_pickle(path, STAMP, _builder(value, calls)) == value
    assert calls == [1]


@pytest.mark.parametrize("damage", ["stamp", "body", "truncate", "empty"])
def test_stale_or_damaged_files_are_rebuilt(tmp_path: Path, damage: str) -> None:
    path = tmp_path / "x.pickle"
    write_stamped_pickle(path, STAMP, ("old",))
    data = path.read_bytes()
    if damage == "stamp":
        write_stamped_pickle(path, {**STAMP, "version": 0}, ("old",))
    elif damage == "body":
        head, _, body = data.partition(b"\n")
        path.write_bytes(head + b"\n" + bytes(b ^ 0x5A for b in body))
    elif damage == "truncate":
        path.write_bytes(data[: len(data) - 3])
    else:
        path.write_bytes(b"")
    calls: list[int] = []
    assert cached_pickle(path, STAMP, _builder(("new",), calls)) == ("new",)
    assert calls == [1]
    assert read_stamped_pickle(path, STAMP) == ("new",)


class _Evil:
    def __init__(self, call: object, *args: object) -> None:
        self.call, self.args = call, args

    def __reduce__(self) -> tuple[object, tuple[object, ...]]:
        return self.call, self.args


def test_only_data_classes_are_resolved(tmp_path: Path) -> None:
    """A file naming any other callable, even one of planproof's own, is refused, not
    run; the data classes and the atom reconstruction are accepted."""
    path = tmp_path / "x.pickle"
    victim = tmp_path / "written.txt"
    for evil in (_Evil(os.getcwd), _Evil(replace_text, victim, "x")):
        path.write_bytes(cache._stamp_line(STAMP) + pickle.dumps(evil))
        assert read_stamped_pickle(path, STAMP) is None
    assert not victim.exists()
    good = (Action("WALK", ("x",)), ground_atom("on", "a.1", "b.2"))
    path.write_bytes(cache._stamp_line(STAMP) + pickle.dumps(good))
    assert read_stamped_pickle(path, STAMP) == good


def test_shared_objects_are_stored_by_name(tmp_path: Path) -> None:
    path = tmp_path / "x.pickle"
    big = {"domain": list(range(1000))}
    write_stamped_pickle(path, STAMP, [big, big], shared={"d": big})
    assert len(path.read_bytes()) < 400
    back = read_stamped_pickle(path, STAMP, shared={"d": big})
    assert back is not None and back[0] is big and back[1] is big
    assert read_stamped_pickle(path, STAMP) is None  # the shared object is required


def test_equal_atoms_are_stored_once(tmp_path: Path) -> None:
    path = tmp_path / "x.pickle"
    a, b = ground_atom("on", "cup.1", "table.2"), ground_atom("on", "cup.1", "table.2")
    assert a is not b
    write_stamped_pickle(path, STAMP, (a, b), canonical=(Atom, Const))
    back = read_stamped_pickle(path, STAMP)
    assert back is not None
    x, y = back
    assert x is y and x == a and hash(x) == hash(a)


def test_atoms_hash_right_in_another_process(tmp_path: Path) -> None:
    """String hashes differ between processes: a pickled atom must be hashed again."""
    atoms = frozenset({ground_atom("on", "cup.1", "table.2"), ground_atom("open", "box.3")})
    path = tmp_path / "atoms.pickle"
    path.write_bytes(pickle.dumps(atoms))
    code = (
        "import pickle, sys\n"
        "from planproof.ltl.trace import ground_atom\n"
        "s = pickle.loads(open(sys.argv[1], 'rb').read())\n"
        "assert ground_atom('on', 'cup.1', 'table.2') in s\n"
        "assert ground_atom('open', 'box.3') in s and len(s) == 2\n"
    )
    for seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        subprocess.run([sys.executable, "-c", code, str(path)], check=True, env=env)


def test_the_source_stamp_follows_edits(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pkg = tmp_path / "planproof"
    (pkg / "sub" / "__pycache__").mkdir(parents=True)
    (pkg / "sub" / "a.py").write_text("x = 1\n")
    (pkg / "sub" / "__pycache__" / "a.pyc").write_bytes(b"junk")
    monkeypatch.setattr(cache, "_PACKAGE_ROOT", pkg)
    first = source_stamp("sub")
    assert "__pycache__" not in first and "sub/a.py" in first.replace(os.sep, "/")
    (pkg / "sub" / "a.py").write_text("x = 22\n")
    assert source_stamp("sub") != first
    second = source_stamp("sub")
    (pkg / "sub" / "b.py").write_text("")
    assert source_stamp("sub") != second


@pytest.mark.data
def test_loaded_virtualhome_tasks_equal_freshly_built_ones(eai_wheel: object) -> None:
    loaded = load_virtualhome_tasks()
    built = build_virtualhome_tasks()
    assert loaded == built
    for a, b in zip(loaded[:40], built[:40], strict=True):
        assert a.world.universe == b.world.universe
        assert (
            replay(a.world, a.initial, a.gold).to_dict()
            == replay(b.world, b.initial, b.gold).to_dict()
        )
    # the cache stores one object per distinct fact
    t0, t1 = loaded[0], loaded[1]
    shared = {a for a in t0.initial if a in t1.initial}
    same = {id(a) for a in t0.initial} & {id(a) for a in t1.initial}
    assert shared and len(same) == len(shared)
    assert Action("WALK", ("x",)) == pickle.loads(pickle.dumps(Action("WALK", ("x",))))


@pytest.mark.data
def test_the_evaluate_command_restores_the_collector(eai_wheel: object, tmp_path: Path) -> None:
    """The command turns the cyclic collector off while it runs (see its module) and
    leaves it as it found it; the results are those of the library calls."""
    import gc
    import json

    from planproof.cli import main
    from planproof.interface.responses import render_virtualhome
    from planproof.metrics.action_sequencing import evaluate_response
    from planproof.runs.modules import task_fields

    tasks = load_virtualhome_tasks()[:6]
    rows = [
        {"identifier": t.identifier, "llm_output": render_virtualhome(t.gold[1:])} for t in tasks
    ]
    responses = tmp_path / "r.json"
    responses.write_text(json.dumps(rows))
    argv = ["evaluate", "action-sequencing", "--dataset", "virtualhome", "--json"]
    argv += ["--responses", str(responses), "--output", str(tmp_path / "out")]
    for enabled in (True, False):
        (gc.enable if enabled else gc.disable)()
        try:
            assert main(argv) == 0
            assert gc.isenabled() is enabled
        finally:
            gc.enable()
    lines = (tmp_path / "out" / "results.jsonl").read_text().splitlines()
    expected = [
        evaluate_response(t, r["llm_output"], "virtualhome")
        for t, r in zip(tasks, rows, strict=True)
    ]
    got = [json.loads(x) for x in lines]
    assert all("reference_verdict" in r for r in got)  # the reference reading stands beside
    assert [{k: v for k, v in r.items() if not k.startswith("reference_")} for r in got] == [
        {**e.to_dict(), **task_fields(t)} for e, t in zip(expected, tasks, strict=True)
    ]
