"""The reference's own episode files (``tests/data/housekeep/reference``, MIT, verbatim
episodes of six scene files of yashkant/housekeep @ ff57c79): read without conversion,
scored in both readings, and the reference's reading equal to what the reference's own
code gives (``expected_reference_metrics.json``, computed by running its metric methods;
the file's ``about`` says how)."""

from __future__ import annotations

import copy
import gzip
import json
import math
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings

from planproof.cli import main
from planproof.commands.evaluate_housekeep import PLANS as COMMAND_PLANS
from planproof.metrics.housekeep import METRICS, score_episode, score_reference
from planproof.simulators.housekeep.episode import (
    episode_documents,
    episode_from_json,
    read_text,
)
from planproof.simulators.housekeep.errors import EpisodeFormatError
from planproof.simulators.housekeep.preferences import PreferenceStore, default_store
from planproof.simulators.housekeep.reference_format import (
    PLANS,
    reference_episode,
    verdict_disagreements,
)
from planproof.simulators.housekeep.strategies import stores_and_episodes
from planproof.simulators.housekeep.world import run
from tests.housekeep.helpers import REAL_DEMO

REFERENCE = Path(__file__).resolve().parents[1] / "data" / "housekeep" / "reference"
FILES = sorted(REFERENCE.rglob("*.json.gz"))
SIX = METRICS[:6]  # map coverage needs the reference's simulator


@cache
def expected() -> dict[str, Any]:
    doc = json.loads((REFERENCE / "expected_reference_metrics.json").read_text("utf-8"))
    table: dict[str, Any] = doc["expected"]
    return table


@cache
def documents(path: Path) -> list[Any]:
    return list(episode_documents(read_text(path), str(path)))


def test_the_carried_files_are_six_scenes_with_their_licence() -> None:
    assert len(FILES) == 6
    assert {p.parent.name for p in FILES} == {"train", "val", "test"}
    assert (REFERENCE / "LICENSE.housekeep").read_text("utf-8").startswith("MIT License")
    assert sum(len(documents(p)) for p in FILES) == 18
    assert set(expected()) == {p.name for p in FILES}


def test_plans_match_the_reader() -> None:
    assert COMMAND_PLANS == PLANS


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_reference_reading_equals_the_reference_code(path: Path) -> None:
    """Every metric of the reference reading equals the reference code's value, on every
    carried episode and plan; planproof's own reading is also computed on the same run."""
    store = default_store()
    want = expected()[path.name]
    seen = 0
    for doc in documents(path):
        for plan in PLANS:
            episode = reference_episode(doc, plan, source=str(path))
            outcome = run(episode)
            assert outcome.error is None
            theirs = score_reference(episode, outcome, store)
            assert theirs is not None
            got = theirs.metrics()
            for metric, value in want[str(doc["episode_id"])][plan].items():
                assert got[metric] == pytest.approx(value, abs=1e-12), (doc["episode_id"], plan)
                seen += 1
    assert seen == len(documents(path)) * len(PLANS) * len(SIX)


def test_beechwood_1_episode_0_the_issue_example() -> None:
    """The oracle on Beechwood_1 episode 0: the reference says solved (ES 1, OS 1); by the
    votes of the receptacle's own category the tea can starts on an unannotated
    ``bottom_cabinet_no_top``, so it is misplaced and the oracle never goes near it (ES 0,
    OS 0.8)."""
    path = next(p for p in FILES if p.name == "Beechwood_1_int.json.gz")
    doc = next(d for d in documents(path) if d["episode_id"] == 0)
    store = default_store()
    episode = reference_episode(doc, "oracle_first_correct", source=str(path))
    assert episode.id == "test_Beechwood_1_int_0_oracle_first_correct"
    outcome = run(episode)
    ours = score_episode(episode, outcome, store)
    theirs = score_reference(episode, outcome, store)
    assert theirs is not None
    assert (ours.episode_success, ours.object_success) == (0.0, pytest.approx(0.8))
    assert (theirs.episode_success, theirs.object_success) == (1.0, 1.0)
    tea = next(o for o in ours.per_object if o.id == "tea_can_pack_1")
    assert tea.initial.startswith("bathroom_1_bottom_cabinet_no_top")
    assert not tea.initially_correct and tea.status.value == "undiscovered"
    pairs = verdict_disagreements(episode, store)
    assert pairs and all(p.reference_correct and p.via == "bottom_cabinet" for p in pairs)
    assert ("tea_can_pack_1", tea.initial) in {(p.item, p.receptacle) for p in pairs}


def test_every_disagreement_is_the_substring_rule() -> None:
    """On every carried episode the readings part only where the generator's substring
    match marked a receptacle correct that its own category's votes do not."""
    store = default_store()
    total = 0
    for path in FILES:
        for doc in documents(path):
            pairs = verdict_disagreements(reference_episode(doc, source=str(path)), store)
            assert all(p.reference_correct and p.via is not None for p in pairs)
            total += len(pairs)
    assert total == 98  # 392 over the four plans of each episode


def test_the_converter_reproduces_the_bundled_demo() -> None:
    """The demo was converted by hand; 24 of its 30 runs (every plan but ``one_wrong``,
    whose wrong receptacle is not recoverable) come out of the reference files unchanged:
    same id, rooms, receptacles, objects and actions."""
    demo = {d["id"]: d for d in map(json.loads, REAL_DEMO.read_text("utf-8").splitlines())}
    matched = 0
    for path in FILES:
        if not path.name.startswith("Ihlen"):
            continue
        for doc in documents(path):
            for plan in PLANS:
                converted = reference_episode(doc, plan, source=str(path)).to_json()
                original = demo.get(converted["id"])
                if original is None:
                    continue
                for key in ("rooms", "receptacles", "objects", "actions"):
                    assert converted[key] == original[key], (converted["id"], key)
                matched += 1
    assert matched == 24


def test_command_reads_the_reference_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "converted.jsonl"
    argv = ["evaluate", "housekeep", *map(str, FILES), "--no-goal-check", "--json"]
    argv += ["--plan", *PLANS, "--write-episodes", str(out), "--output", str(tmp_path)]
    assert main(argv) == 0
    printed = json.loads(capsys.readouterr().out)
    records, summary = printed["episodes"], printed["summary"]
    assert len(records) == 18 * len(PLANS) and all(r["ok"] for r in records)
    ref = summary["reference_reading"]
    assert ref["episodes"] == 72 and ref["episodes_differing"] == 24
    assert ref["objects_differing"] == 32
    assert ref["disagreeing_pairs"] == ref["pairs_explained_by_substring_rule"] == 392
    for r in records:
        x = r["reference_reading"]
        differ = [
            m for m in SIX if not math.isclose(r["metrics"][m], x["metrics"][m], abs_tol=1e-12)
        ]
        assert differ == [m for m in x["metrics_differ"] if m in SIX]
        if differ:
            assert x["objects_differ"]
    # the converter's output is planproof's format and scores the same
    converted = [episode_from_json(json.loads(line)) for line in out.read_text().splitlines()]
    assert [e.id for e in converted] == [r["id"] for r in records]
    assert all(e.reference_correct is not None for e in converted)
    assert main(["evaluate", "housekeep", str(out), "--no-goal-check", "--json"]) == 0
    again = json.loads(capsys.readouterr().out)["episodes"]
    assert [r["reference_reading"]["metrics"] for r in again] == [
        r["reference_reading"]["metrics"] for r in records
    ]


def test_text_output_shows_both_readings(capsys: pytest.CaptureFixture[str]) -> None:
    path = next(p for p in FILES if p.name == "Beechwood_1_int.json.gz")
    assert main(["evaluate", "housekeep", str(path), "--no-goal-check"]) == 0
    text = capsys.readouterr().out
    assert "the reference's reading (end_matrix)" in text
    assert "tea_can_pack_1" in text
    assert "1 of 3 episode(s) score differently" in text


def _write_gz(path: Path, doc: Any) -> None:
    path.write_bytes(gzip.compress(json.dumps(doc).encode()))


def test_a_malformed_episode_names_file_and_episode(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """One broken episode (an object starting on two receptacles) among good ones: its
    record names the file and the episode, the others are scored, the status is 2."""
    path = next(p for p in FILES if p.name == "Ihlen_0_int.json.gz")
    eps = copy.deepcopy(documents(path))
    eps[1]["start_matrix"][0] = [1] * len(eps[1]["objs_keys"])
    bad = tmp_path / "Ihlen_0_int.json.gz"
    _write_gz(bad, {"episodes": eps})
    assert main(["evaluate", "housekeep", str(bad), "--no-goal-check", "--json"]) == 2
    captured = capsys.readouterr()
    records = json.loads(captured.out)["episodes"]
    assert [r["ok"] for r in records] == [True, False, True]
    message = records[1]["message"]
    assert str(bad) in message and "episode 1" in message and "start_matrix" in message
    assert records[1]["id"] == "1"
    assert "episode 1" in captured.err


@pytest.mark.parametrize(
    ("change", "complaint"),
    [
        (lambda d: d.pop("objs_cats"), "missing fields ['objs_cats']"),
        (lambda d: d["end_matrix"].pop(), "end_matrix must have"),
        (lambda d: d["end_matrix"][0].append(0), "end_matrix row 0"),
        (lambda d: d["start_matrix"][0].__setitem__(0, 2), "only 0 and 1"),
        (lambda d: d.__setitem__("misplaced_count", 0.0), "misplaced_count is 0.0"),
        (lambda d: (d["recs_keys"].append("agent"), d["recs_cats"].append("agent")), "'agent'"),
        (lambda d: d["recs_keys"].append("x-y_1.urdf"), "recs_cats/objs_cats must match"),
    ],
)
def test_malformed_reference_episodes(change: Any, complaint: str) -> None:
    doc = copy.deepcopy(documents(FILES[0])[0])
    change(doc)
    with pytest.raises(EpisodeFormatError, match=r"f\.json\.gz, episode") as err:
        reference_episode(doc, source="f.json.gz")
    assert complaint in str(err.value)


def test_gzip_is_bounded_and_checked(tmp_path: Path) -> None:
    truncated = tmp_path / "t.json.gz"
    truncated.write_bytes(FILES[0].read_bytes()[:200])
    with pytest.raises(EpisodeFormatError, match="truncated"):
        read_text(truncated)
    broken = tmp_path / "b.json.gz"
    broken.write_bytes(b"\x1f\x8b" + b"\x00" * 40)
    with pytest.raises(EpisodeFormatError, match="gzip"):
        read_text(broken)
    bomb = tmp_path / "bomb.json.gz"  # 60 MB of spaces in about 60 kB
    bomb.write_bytes(gzip.compress(b" " * 60_000_000, compresslevel=9))
    assert bomb.stat().st_size < 100_000
    with pytest.raises(EpisodeFormatError, match="decompresses to more than"):
        read_text(bomb)


@settings(max_examples=60, deadline=None)
@given(stores_and_episodes())
def test_readings_agree_when_end_matrix_is_the_votes(
    case: tuple[PreferenceStore, Any],
) -> None:
    """With ``end_matrix`` equal to the votes' own verdicts the reference reading is
    planproof's reading, object by object; and the verdicts survive a round trip."""
    store, episode = case
    table = {
        o.id: frozenset(
            r.id for r in episode.receptacles if episode.judgement(store, o.id, r.id).is_correct
        )
        for o in episode.objects
    }
    doc = episode.to_json()
    doc["reference_correct"] = {o: sorted(rs) for o, rs in table.items()}
    with_ref = episode_from_json(doc)
    assert with_ref.reference_correct == table
    assert episode_from_json(with_ref.to_json()) == with_ref
    outcome = run(with_ref)
    ours = score_episode(with_ref, outcome, store)
    theirs = score_reference(with_ref, outcome, store)
    assert theirs == ours
    assert verdict_disagreements(with_ref, store) == []
    # and flipping every verdict of one object is seen as a disagreement for each receptacle
    first = episode.objects[0].id
    flipped = {**table, first: frozenset(r.id for r in episode.receptacles) - table[first]}
    doc["reference_correct"] = {o: sorted(rs) for o, rs in flipped.items()}
    assert len(verdict_disagreements(episode_from_json(doc), store)) == len(episode.receptacles)


def test_report_shows_the_reference_reading(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = next(p for p in FILES if p.name == "Beechwood_1_int.json.gz")
    out = tmp_path / "run"
    assert main(["evaluate", "housekeep", str(path), "--no-goal-check", "--output", str(out)]) == 0
    page = tmp_path / "report.html"
    assert main(["report", str(out), "--out", str(page)]) == 0
    capsys.readouterr()
    html = page.read_text("utf-8")
    assert "The reference&#39;s reading: end_matrix" in html  # the column group
    assert "Objects apart" in html
    assert "1 of 3 episode(s) score differently" in html  # the run's note
    assert "Correct only by the reference&#39;s substring rule" in html  # the drill-down
    assert "matched as bottom_cabinet" in html


def test_an_unreadable_file_does_not_stop_the_others(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A truncated file among good ones: one error record naming it, the rest scored."""
    truncated = tmp_path / "Merom_0_int.json.gz"
    truncated.write_bytes(FILES[0].read_bytes()[:300])
    good = next(p for p in FILES if p.name == "Ihlen_0_int.json.gz")
    argv = ["evaluate", "housekeep", str(truncated), str(good), "--no-goal-check", "--json"]
    assert main(argv) == 2
    captured = capsys.readouterr()
    records = json.loads(captured.out)["episodes"]
    assert [r["ok"] for r in records] == [False, True, True, True]
    assert str(truncated) in records[0]["message"] and "truncated" in records[0]["message"]
    assert str(truncated) in captured.err
