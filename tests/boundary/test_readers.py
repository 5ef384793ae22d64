"""Every reader of an input file, fed arbitrary bytes and deep nesting: a value or its
typed error, never another exception (property tests of issue 18)."""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from planproof.boundary import InputError
from planproof.interface.errors import ResponsesFileError
from planproof.interface.responses import read_responses
from planproof.ltl.errors import LTLError
from planproof.ltl.io import load_json, trace_from_json
from planproof.report.load import ReportError
from planproof.report.results_dirs import load_run
from planproof.simulators.housekeep.episode import load_episodes as load_housekeep
from planproof.simulators.housekeep.errors import HousekeepError
from planproof.simulators.housekeep.preferences import load_store
from planproof.simulators.teach.episode import load_episodes as load_teach
from planproof.simulators.teach.errors import TeachError


def _trace(p: Path) -> object:
    return trace_from_json(load_json(p))


def _report(p: Path) -> object:
    run = p.parent / "run"
    run.mkdir(exist_ok=True)
    (run / "run.json").write_bytes(p.read_bytes())
    (run / "summary.json").write_text("{}", encoding="utf-8")
    (run / "results.jsonl").write_bytes(p.read_bytes())
    return load_run(run)


READERS: dict[str, tuple[Callable[[Path], object], tuple[type[Exception], ...]]] = {
    "teach episodes": (load_teach, (TeachError,)),
    "housekeep episodes": (load_housekeep, (HousekeepError,)),
    "housekeep preferences": (load_store, (HousekeepError,)),
    "EAI responses": (read_responses, (ResponsesFileError,)),
    "ltl trace": (_trace, (InputError, LTLError)),
    "report run": (_report, (ReportError,)),
}

_json_like = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=6),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner),
    max_leaves=12,
)
_bytes = st.one_of(
    st.binary(max_size=300),
    _json_like.map(lambda v: json.dumps(v).encode()),
    st.text(max_size=200).map(lambda t: t.encode("utf-8", "surrogatepass")),
    st.integers(1, 100_000).map(lambda n: b'{"a": ' + b"[" * n + b"]" * n + b"}"),
)
SETTINGS = settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


@pytest.mark.parametrize("reader", sorted(READERS))
@SETTINGS
@given(data=_bytes)
def test_any_bytes_are_a_value_or_a_typed_error(reader: str, data: bytes) -> None:
    read, errors = READERS[reader]
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "input.json"
        path.write_bytes(data)
        try:
            value = read(path)
        except errors as err:
            assert str(err).strip()  # a message a person can act on
        else:
            assert value is not None


@pytest.mark.parametrize("reader", sorted(READERS))
def test_deep_nesting_names_the_depth(reader: str, tmp_path: Path) -> None:
    read, errors = READERS[reader]
    path = tmp_path / "deep.json"
    path.write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    with pytest.raises(errors, match="nested more than 200 levels"):
        read(path)
