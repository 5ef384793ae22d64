"""Subgoal decomposition's reference reading (:mod:`planproof.metrics.reference_subgoal_
decomposition`): its figures against the reference code's stored cells, each class of the
corrections on a real published answer, and the corrections table accounting for the whole
gap between the two readings (``docs/subgoal-decomposition.md``, "The reference reading")."""

from __future__ import annotations

import functools
import json
import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from planproof.data import DataUnavailableError
from planproof.data.published import PublishedFile, published_files
from planproof.data.reference_figures import reference_figures, whole_files
from planproof.metrics import reference_subgoal_decomposition as R
from planproof.runs import subgoal_readings as sr
from planproof.runs.modules import load_tasks
from planproof.runs.published_sweep import Cell, Shard, evaluate_shard, figures, merge_shards
from planproof.runs.subgoal_reference_check import (
    StoredVerdictError,
    compare_cell,
    stored_verdict,
    stored_verdicts,
    whole_file_figures,
)
from planproof.simulators.core import Action
from tests.helpers import needed_resource

SD = "subgoal-decomposition"
KEYS = (
    "task_success",
    "execution_success",
    "parsing",
    "hallucination",
    "argument_count",
    "missing_step",
    "wrong_order",
    "affordance",
    "additional_step",
)
DOCUMENTED = {
    ("cohere-command-r", "parsing"),
    ("cohere-command-r", "hallucination"),
    ("cohere-command-r-plus", "task_success"),
    ("cohere-command-r-plus", "execution_success"),
    ("cohere-command-r-plus", "missing_step"),
}
"""The stored sampled figures the reading does not give (docs/subgoal-decomposition.md,
"Against the reference code"): 5 of 135, in 2 of 15 cells, while those cells were
samples; the whole-file runs have since made both whole, and every task of theirs equals
the reading (``test_reading_gives_every_whole_file_verdict``)."""


@pytest.fixture(scope="module")
def sd_files() -> list[PublishedFile]:
    files = needed_resource(published_files, DataUnavailableError, "published EAI outputs")
    return [f for f in files if f.module == SD]


@pytest.fixture(scope="module")
def tasks() -> dict[str, Any]:
    return {t.identifier: t for t in load_tasks("virtualhome")}


def _rows(f: PublishedFile) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = json.loads(f.path.read_text(encoding="utf-8"))
    return rows


@pytest.mark.data
def test_reading_gives_the_stored_sampled_figures_but_the_documented(
    sd_files: list[PublishedFile], tasks: dict[str, Any]
) -> None:
    """On the tasks each stored sampled cell saw (every 6th of the file), the reading's
    figures equal the reference code's to 0.1 except the documented ones, named one by one
    (a cell the whole-file runs have made whole is checked, with their draws, by
    ``test_reading_gives_every_whole_file_verdict``)."""
    stored = reference_figures()["modules"][SD]
    differ: set[tuple[str, str]] = set()
    for f in sd_files:
        if "sample" not in stored[f.model]:
            continue
        every = stored[f.model]["sample"]["every"]
        rows = _rows(f)[::every]
        draws = R.file_draws(rows, batch=None)
        scored = []
        for row in rows:
            ident = str(row["identifier"]).removeprefix("scene_1_")
            scored.append(R.score_answer(tasks[ident], draws[ident]))
        mine = figures(SD, R.summarize_reference(scored))
        theirs = stored[f.model]["figures"]
        differ |= {(f.model, k) for k in KEYS if abs(mine[k] - theirs[k]) > 0.1}
    still_sampled = {d for d in DOCUMENTED if "sample" in stored[d[0]]}
    assert differ == still_sampled


CASES = [
    ("gpt-4o-2024-05-13", "941_2", "disjunct-sampled"),
    ("gpt-3.5-turbo-0125", "488_2", "unparsable-subgoal-dropped"),
    ("cohere-command-r-plus", "349_1", "translator-rule"),
    ("llama-3-70b-chat", "672_1", "translator-rule"),
    ("cohere-command-r", "624_2", "translator-rule"),
    ("llama-3-8b-chat", "137_2", "translator-rule"),
    ("cohere-command-r-plus", "201_1", "conjunction-as-sequence"),
    ("claude-3-opus-20240229", "650_2", "conjunction-as-sequence"),
    ("claude-3-haiku-20240307", "117_1", "additional-step-accepted"),
    ("claude-3-opus-20240229", "813_2", "additional-step-accepted"),
    ("claude-3-haiku-20240307", "229_1", "unknown-primitive"),
    ("claude-3-haiku-20240307", "259_1", "refinement-search"),
    ("gemini-1.0-pro", "473_1", "refinement-choice"),
    ("gemini-1.5-flash-preview-0514", "1027_2", "reference-exception"),
]
"""Each class on the real answer docs/reference-differences.md names for it."""


@pytest.mark.data
@pytest.mark.parametrize(("model", "ident", "cls"), CASES)
def test_each_class_on_its_real_example(
    sd_files: list[PublishedFile], tasks: dict[str, Any], model: str, ident: str, cls: str
) -> None:
    f = next(x for x in sd_files if x.model == model)
    row = next(r for r in _rows(f) if r["identifier"] == f"scene_1_{ident}")
    got = sr.score_both(tasks[ident], row["llm_output"], sr.draws_for(str(f.path)).get(ident))
    assert got.correction is not None and got.correction.cls == cls
    own, ref = got.planproof.trajectory, got.reference
    assert got.correction.success == int(own.success) - int(ref.success)
    assert got.correction.executable == int(own.executable) - int(ref.executable)


@pytest.mark.data
def test_corrections_account_for_the_whole_gap_on_every_file(
    sd_files: list[PublishedFile],
) -> None:
    """On a slice of every file (every 6th dataset task, scored as the sweep scores it),
    the corrections sum to planproof's successes and executable tasks minus the reference
    reading's, and none is unexplained."""
    cells = [Cell(f.model, SD, "virtualhome", str(f.path)) for f in sd_files]
    parts = evaluate_shard(Shard(tuple(cells), 0, 6))
    for cell, part in zip(cells, parts, strict=True):
        r = merge_shards(cell, [part])
        table = r["summary"]["corrections"]
        assert table["unexplained"] == 0, (cell.model, table)
        for key in ("success", "executable"):
            own = sum(t[key] for t in r["tasks"])
            ref = sum(t["reference"][key] for t in r["tasks"])
            assert table["total"][key] == own - ref, (cell.model, key)
            assert sum(c[key] for c in table["classes"].values()) == own - ref


def test_lines_as_the_reference_keeps_them() -> None:
    """Dropped lines, the zero-argument actions, a non-string line and one draw per kept
    line (also of a one-disjunct line) from the seeded generator."""
    text = json.dumps({"output": ["DRINK", "SLEEP", "A(x.1) or B(y.2)", " ", "C(z.3)"]})
    plan = R.sample_plan(text, random.Random(R.REFERENCE_SEED))
    rng = random.Random(R.REFERENCE_SEED)
    expected = (
        "SLEEP()",
        rng.choice(["A(x.1)", "B(y.2)"]),
        rng.choice(["C(z.3)"]),
    )
    assert plan == R.SampledPlan(expected, dropped=1, sampled=1)
    assert R.sample_plan('{"output": ["A(x.1)", 3]}', random.Random(0)).lines is None
    assert R.sample_plan('{"output": "A(x.1)"}', random.Random(0)).lines is None
    assert R.sample_plan("{{'output': []}}", random.Random(0)).lines is None


def test_the_generator_restarts_every_batch() -> None:
    """The stored whole-file runs start a process per 13 answers: answer 13 draws as
    answer 0 does, answer 1 continues answer 0's generator."""
    line = {"llm_output": json.dumps({"output": ["A(x.1) or B(y.2) or C(z.3) or D(w.4)"]})}
    rows = [{**line, "identifier": f"scene_1_{i}_1"} for i in range(14)]
    draws = R.file_draws(rows)
    assert draws["13_1"] == draws["0_1"]
    rng = random.Random(R.REFERENCE_SEED)
    seq = [rng.choice("ABCD") for _ in range(13)]
    assert [draws[f"{i}_1"].lines[0][0] for i in range(13)] == seq  # type: ignore[index]
    whole = R.file_draws(rows, batch=None)
    assert whole["13_1"].lines[0][0] == rng.choice("ABCD")  # type: ignore[index]


def test_translator_templates(tasks: dict[str, Any]) -> None:
    """The translator's templates: a left-hand grab, a skipped SITTING, a walk into an
    object, two alternatives for CLEAN, NEXT_TO written from the object skipped, and a
    negation it cannot translate."""
    from planproof.ltl.ast import Atom, Const, Not
    from planproof.simulators.core import Action

    task = needed_resource(lambda: tasks["27_2"], KeyError, "task 27_2")
    c, soap = Const("character.65"), Const("soap.1002")
    s = task.initial
    assert R.translate(Atom("holds_lh", (c, soap)), s) == [
        [Action("FIND", ("soap.1002",)), Action("GRAB", ("soap.1002",))]
    ]
    assert R.translate(Atom("sitting", (c,)), s) == []
    assert R.translate(Atom("next_to", (soap, c)), s) == []
    assert R.translate(Atom("inside", (c, soap)), s) == [[Action("WALK", ("soap.1002",))]]
    assert len(R.translate(Atom("clean", (soap,)), s)) == 2
    with pytest.raises(R._NotParseable):
        R.translate(Not(Atom("on", (soap,))), s)


VERDICTS = Path(__file__).parent.parent / "data" / "eai_sd" / "reference_sample_verdicts.json"


@pytest.mark.data
def test_reading_gives_the_reference_code_verdict_on_every_stored_task(
    sd_files: list[PublishedFile], tasks: dict[str, Any]
) -> None:
    """The reference code's own per-task verdicts (category, executability, success) on
    every 6th answer, the models run one after the other in one process (one generator over
    both samples, in the recorded order): the reading gives every one (0 differences)."""
    doc = json.loads(VERDICTS.read_text(encoding="utf-8"))
    order = doc["provenance"]["process_order"]
    assert sorted(order) == sorted(doc["models"])
    differ: set[tuple[str, str]] = set()
    compared = 0
    rng = random.Random(R.REFERENCE_SEED)
    for model in order:
        verdicts = doc["models"][model]
        f = next(x for x in sd_files if x.model == model)
        rows = _rows(f)[::6]
        draws = R.file_draws(rows, batch=None, rng=rng)
        for row in rows:
            ident = str(row["identifier"]).removeprefix("scene_1_")
            got = R.score_answer(tasks[ident], draws[ident])
            want = verdicts[ident]
            compared += 1
            if (got.category, got.executable, got.success) != (
                want["category"],
                want["executable"],
                want["success"],
            ):
                differ.add((model, ident))
    assert compared == sum(len(v) for v in doc["models"].values())
    assert not differ, sorted(differ)


BATCH_VERDICTS = VERDICTS.with_name("reference_batch_verdicts.json")


@pytest.mark.data
def test_reading_gives_the_reference_code_verdict_on_every_batch_task(
    sd_files: list[PublishedFile], tasks: dict[str, Any]
) -> None:
    """The reference code's per-task verdicts on the first batches of GPT-4o's whole file,
    each batch of 13 from a fresh seed as the whole-file runs go (the file with the most
    disjunctions): the reading gives every one (0 differences)."""
    doc = json.loads(BATCH_VERDICTS.read_text(encoding="utf-8"))
    batch = doc["provenance"]["batch_size"]
    for model, verdicts in doc["models"].items():
        f = next(x for x in sd_files if x.model == model)
        want = {k: (v["category"], v["executable"], v["success"]) for k, v in verdicts.items()}
        got = compare_cell(model, want, _rows(f), tasks, batch)
        assert got.compared == len(verdicts) > 0
        assert got.differences == (), got.differences


def test_one_process_goes_on_with_the_last_files_generator() -> None:
    """Two files in one interpreter: the second file's first draw is the one after the first
    file's last (not a fresh seed), and a batch size restarts the generator anyway."""
    line = json.dumps({"output": ["A(x.1) or B(y.2) or C(z.3) or D(w.4)"]})
    first = [{"identifier": f"scene_1_{i}_1", "llm_output": line} for i in range(3)]
    second = [{"identifier": "scene_1_9_1", "llm_output": line}]
    rng = random.Random(R.REFERENCE_SEED)
    R.file_draws(first, batch=None, rng=rng)
    after = R.file_draws(second, batch=None, rng=rng)["9_1"].lines
    alone = R.file_draws(first + second, batch=None)["9_1"].lines
    fresh = R.file_draws(second, batch=None)["9_1"].lines
    assert after == alone
    expected = random.Random(R.REFERENCE_SEED)
    for _ in range(3):
        expected.choice("ABCD")
    assert after is not None and after[0][0] == expected.choice("ABCD")
    used = random.Random(R.REFERENCE_SEED)
    used.random()
    assert R.file_draws(second, rng=used)["9_1"].lines == fresh


_LINE = st.one_of(
    st.sampled_from(["SLEEP", "WAKEUP", "STANDUP", "DRINK", "", "  "]),
    st.lists(
        st.sampled_from(["A(x.1)", "B(y.2, z.3)", "C()", "word", "D(q"]), min_size=1, max_size=3
    ).map(" or ".join),
)


@given(st.lists(_LINE, max_size=8), st.integers(0, 2**16))
def test_every_line_is_kept_dropped_or_blank(lines: list[str], seed: int) -> None:
    """Each non-blank line is either dropped (no ``NAME(...)``) or kept as one of its own
    disjuncts, in order; the draws come from the generator only."""
    plan = R.sample_plan(json.dumps({"output": lines}), random.Random(seed))
    assert plan.lines is not None
    kept = iter(plan.lines)
    dropped = 0
    for line in (x.strip() for x in lines):
        if not line:
            continue
        if line in ("SLEEP", "WAKEUP", "STANDUP"):
            assert next(kept) == f"{line}()"
        elif R.SUBGOAL_LINE.search(line):
            assert next(kept) in line.split(" or ")
        else:
            dropped += 1
    assert next(kept, None) is None
    assert plan.dropped == dropped
    again = R.sample_plan(json.dumps({"output": lines}), random.Random(seed))
    assert again == plan


WHOLE = whole_files().get("cells", {}).get(SD, {})
"""The reference's whole-file subgoal-decomposition runs stored so far (any number of
batches per model; none at first)."""


@pytest.mark.data
@pytest.mark.parametrize("model", sorted(WHOLE))
def test_reading_gives_every_whole_file_verdict(
    sd_files: list[PublishedFile], tasks: dict[str, Any], model: str
) -> None:
    """0 differences: every task the reference has scored in the stored whole-file batches
    gets the reference's category, executability, success, argument count and error types
    from the reading, with the draws of one process per batch; a whole cell's figures are
    the reference's to 0.1."""
    cell = WHOLE[model]
    f = next(x for x in sd_files if x.model == model)
    rows = _rows(f)
    verdicts = stored_verdicts(whole_files(), model)
    got = compare_cell(model, verdicts, rows, tasks, cell["batch_size"])
    assert got.compared == sum(len(b["ids"]) for b in cell["batches"].values())
    assert not got.differences, got.differences
    if cell.get("whole") and cell.get("figures"):
        mine = _file_figures(model)
        off = {k: (v, mine.get(k)) for k, v in cell["figures"].items() if k in KEYS}
        assert all(m is not None and abs(m - v) <= 0.1 for v, m in off.values()), off


@pytest.mark.data
def test_error_types_are_compared(sd_files: list[PublishedFile], tasks: dict[str, Any]) -> None:
    """A stored report whose error types or argument count differ from the reading's is a
    difference, not only one whose success does."""
    model = "gpt-4o-2024-05-13"
    if model not in WHOLE:
        pytest.skip("GPT-4o's whole-file subgoal-decomposition runs are not stored")
    f = next(x for x in sd_files if x.model == model)
    verdicts = stored_verdicts(whole_files(), model)
    ident = next(k for k, v in sorted(verdicts.items()) if v[4])  # a task with error types
    other = next(k for k in sorted(verdicts) if k != ident)
    cat, exe, ok, argc, errors = verdicts[ident]
    o_cat, o_exe, o_ok, o_argc, o_errors = verdicts[other]
    changed = {
        ident: (cat, exe, ok, argc, (*errors, "unknown_error")),
        other: (o_cat, o_exe, o_ok, not o_argc, o_errors),
    }
    got = compare_cell(model, changed, _rows(f), tasks, WHOLE[model]["batch_size"])
    assert sorted(d.identifier for d in got.differences) == sorted([ident, other])


@functools.cache
def _file_figures(model: str) -> dict[str, float]:
    """The reading's figures on ``model``'s whole file, drawn as the stored batches drew."""
    files = needed_resource(published_files, DataUnavailableError, "published EAI outputs")
    f = next(x for x in files if x.module == SD and x.model == model)
    tasks = {t.identifier: t for t in load_tasks("virtualhome")}
    return whole_file_figures(_rows(f), tasks, WHOLE[model]["batch_size"])


@pytest.mark.data
def test_whole_cells_rank_the_models_as_the_reference() -> None:
    """Kendall's tau against the paper, over the files the reference has run whole: the
    reading's column gives the reference's tau for every figure of Table 11 (with all 15
    files whole, the leaderboard's tau)."""
    from planproof.data.paper_eai import paper_figure
    from planproof.data.published import MODELS
    from planproof.report.leaderboard import kendall_tau

    whole = sorted(m for m, c in WHOLE.items() if c.get("whole") and c.get("figures"))
    if len(whole) < 3:
        pytest.skip("fewer than 3 subgoal-decomposition files are whole in the stored runs")
    compared = 0
    for key in KEYS:
        paper = [paper_figure(MODELS[m], SD, key) for m in whole]
        if any(p is None for p in paper):
            continue
        values = [p.value for p in paper if p is not None]
        reference = kendall_tau(values, [WHOLE[m]["figures"][key] for m in whole])
        reading = kendall_tau(values, [_file_figures(m)[key] for m in whole])
        assert reading is not None and reading == reference, (key, reading, reference)
        compared += 1
    assert compared >= 2  # success rates at least: Table 11 prints them for every model


@pytest.mark.data
def test_scene_objects_outside_the_world_are_in_the_reading(
    sd_files: list[PublishedFile], tasks: dict[str, Any]
) -> None:
    """481_2 (Claude-3 Haiku): ``chair.356`` is in the task's initial scene graph but not in
    planproof's world (only the objects a task touches are converted). The reference checks
    names against the whole scene graph and runs the plan: ``Runtime`` (an affordance error),
    not a hallucination; the chair, its class property and its init-graph relations join
    the world of the reading only. A name the scene graph lacks (or an id of another class)
    stays a hallucination."""
    from planproof.simulators.virtualhome.tasks import with_scene_objects

    task = needed_resource(lambda: tasks["481_2"], KeyError, "task 481_2")
    assert "chair.356" not in task.world.objects
    f = next(x for x in sd_files if x.model == "claude-3-haiku-20240307")
    row = next(r for r in _rows(f) if r["identifier"] == "scene_1_481_2")
    lines = R.sample_plan(row["llm_output"], random.Random(0)).lines
    assert lines is not None and "ONTOP(character.65, chair.356)" in lines
    got = R.score_answer(task, R.SampledPlan(lines))
    assert (got.category, got.error) == ("Runtime", "affordance")
    assert str(Action("SIT", ("chair.356",))) in got.actions  # run, on the scene's chair
    assert got.actions[-1] == str(Action("FIND", ("button.1001",)))  # TYPE: the affordance
    wider = with_scene_objects(task, lines)
    assert "chair.356" in wider.world.objects and "chair.356" not in task.world.objects
    assert any(a.pred == "movable" and a.args[0].name == "chair.356" for a in wider.world.static)
    assert any("chair.356" in {x.name for x in a.args} for a in wider.initial - task.initial)
    assert with_scene_objects(task, lines) is wider  # built once per (task, objects)
    assert with_scene_objects(task, ("TYPE(button.1001)",)) is task
    for name in ("chair.99999", "sofa.356"):
        plan = R.SampledPlan(tuple(x.replace("chair.356", name) for x in lines))
        assert R.score_answer(task, plan).category == "Hallucination"


def test_stored_verdicts_read_back_as_the_reference_reads_them() -> None:
    """Category, executability (``Runtime`` by its second item) and success from a stored
    ``error_info`` entry; an unreadable one is a typed error."""
    ok = {"success": True, "info": "('Correct', True, [[3]], [], {})"}
    assert stored_verdict(ok) == ("Correct", True, True)
    assert stored_verdict({"success": False, "info": "('Runtime', False, [], {})"}) == (
        "Runtime",
        False,
        False,
    )
    assert stored_verdict({"success": False, "info": "('GoalUnreachable', True, [], {})"})[1]
    assert stored_verdict({"success": False, "info": "('NotParseable', 'x', None)"}) == (
        "NotParseable",
        False,
        False,
    )
    for bad in ("('Correct'", "[1, 2]", "None", "__import__('os')"):
        with pytest.raises(StoredVerdictError):
            stored_verdict({"success": False, "info": bad})


def test_syntax_is_checked_before_any_name(tasks: dict[str, Any]) -> None:
    """The reference parses the whole formula before it looks a name up: an object written
    ``character.65.hands`` or an unbalanced parenthesis makes the plan ``NotParseable`` even
    with an unknown primitive (``CLOSE``) on another line; a well-formed one reaches the
    vocabulary check (a hallucination)."""
    task = needed_resource(lambda: tasks["258_2"], KeyError, "task 258_2")
    bad = R.SampledPlan(("RINSE(character.65.hands)", "CLOSE(faucet.232)"))
    assert R.score_answer(task, bad).category == "NotParseable"
    good = R.SampledPlan(("RINSE(hands_both.1001)", "CLOSE(faucet.232)"))
    assert R.score_answer(task, good).category == "Hallucination"
    assert R.in_reference_syntax(["(A(x.1)", "B(y.2))"])  # balanced once joined with then
    assert not R.in_reference_syntax(["WASH(h.1)) and FACING(c.65, b.1)"])
    assert not R.in_reference_syntax(["SITTING"])
    assert R.in_reference_syntax(["not ON(tv.1) and SLEEP()"])


_VERBS = st.sampled_from(["WALK", "FIND", "GRAB", "PUTBACK", "OPEN", "SWITCHON", "TURNTO"])


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_a_literal_replayed_from_its_state_is_the_whole_path_replayed(
    tasks: dict[str, Any], data: st.DataObject
) -> None:
    """``_replay`` (a literal's actions from the path's state when that is safe) gives what
    the executor gives on the whole path from the initial state: executed steps, additional
    steps, error and final state."""
    from planproof.metrics.reference_executor import replay_reference_executor
    from planproof.simulators.core import Action

    task = needed_resource(lambda: tasks["27_2"], KeyError, "task 27_2")
    names = sorted(str(o) for o in task.world.objects if not str(o).startswith("character"))
    objs = st.sampled_from(names[:12])

    def step(verb: str) -> st.SearchStrategy[Any]:
        n = 2 if verb == "PUTBACK" else 1
        return st.tuples(*[objs] * n).map(lambda xs: Action(verb, tuple(xs)))

    seq = st.lists(_VERBS.flatmap(step), max_size=6)
    prefix, actions = data.draw(seq), data.draw(seq)
    state, ran, _, _ = replay_reference_executor(task, prefix)
    done = tuple(prefix[k] for k in ran)
    got = R._replay(task, state, done, actions)
    final, ran_all, additional, err = replay_reference_executor(task, (*done, *actions))
    assert got == (final, [k - len(done) for k in ran_all if k >= len(done)], additional, err)
