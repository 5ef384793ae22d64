"""``planproof evaluate <module> --reading planproof|reference|both``: a researcher's own
answers scored by the reference's rules beside planproof's, with the very functions of
``planproof reproduce eai``. A published answer file given as ``--responses`` gets exactly
the sweep's reference-reading figures, task verdicts and corrections; the text, the JSON,
summary.json and results.jsonl carry them; bad input is a typed error."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from planproof.cli import main
from planproof.data import DataUnavailableError
from planproof.data.published import PublishedFile, published_files
from planproof.runs.published_sweep import Cell, evaluate_cell, figures
from tests.helpers import needed_resource

GPT4O = "gpt-4o-2024-05-13"
HAIKU = "claude-3-haiku-20240307"


def _published(module: str, model: str) -> PublishedFile:
    files = needed_resource(published_files, DataUnavailableError, "published EAI outputs")
    return next(
        f for f in files if (f.module, f.model, f.dataset) == (module, model, "virtualhome")
    )


def _evaluate(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["evaluate", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def _rows(out: Path) -> list[dict[str, Any]]:
    lines = (out / "results.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines]


# ------------------------------------------------- a published file: the sweep's reading
@pytest.mark.data
@pytest.mark.parametrize(
    ("module", "model"),
    [
        ("goal-interpretation", GPT4O),
        ("goal-interpretation", "cohere-command-r"),
        ("action-sequencing", GPT4O),
        ("action-sequencing", HAIKU),
        ("subgoal-decomposition", GPT4O),
    ],
)
def test_a_published_file_gets_the_reproduce_tables_reference_reading(
    module: str, model: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Figures, every task's reference verdict, and the corrections by class equal the
    sweep's for the same file (the ``ref. reading`` column of ``reproduce eai``)."""
    f = _published(module, model)
    out = tmp_path / "o"
    extra = ["--no-logic"] if module == "goal-interpretation" else []
    code, stdout, _ = _evaluate(
        capsys,
        module,
        "--dataset",
        "virtualhome",
        "--responses",
        str(f.path),
        "--output",
        str(out),
        "--reading",
        "reference",
        "--json",
        *extra,
    )
    assert code == 0
    summary = json.loads(stdout)
    cell = evaluate_cell(Cell(model, module, "virtualhome", str(f.path)))
    assert summary["reading"] == "reference"
    assert summary["reference_reading_figures"] == cell["reference_reading_figures"]
    assert summary["reference_reading"] == cell["summary"]["reference_reading"]
    assert summary["corrections"] == cell["summary"]["corrections"]
    assert summary["corrections"]["unexplained"] == 0
    on_disk = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert on_disk["reference_reading_figures"] == cell["reference_reading_figures"]
    # every task's reference verdict and correction, as the sweep keeps them
    rows = {r["identifier"]: r["reference_verdict"] for r in _rows(out)}
    words = {r["identifier"]: r["reference_reading"] for r in _rows(out)}
    swept = {t["identifier"]: t for t in cell["tasks"]}
    assert rows.keys() == swept.keys() and len(rows) == summary["tasks"]
    for ident, t in swept.items():
        assert rows[ident]["reference"] == t["reference"], ident
        assert words[ident] == t["record"]["reference_reading"], ident  # the drill-down's
        for key in ("correction", "corrections"):
            if key in t:
                assert rows[ident][key] == t[key], ident
    # planproof's own reading is untouched by --reading: the sweep's figures too
    assert summary["goal_evaluation"] == cell["summary"]["goal_evaluation"]


@pytest.mark.data
@pytest.mark.parametrize("dataset", ["virtualhome", "behavior"])
def test_transition_modeling_reads_the_logic_form_as_the_reference_counts(
    dataset: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """GPT-4o's published transition-modeling file: the reference reading's logic-form
    figures equal the reference code's own (stored whole-file figures, VirtualHome and
    BEHAVIOR), and each task's counts add up to them."""
    from planproof.data.reference_figures import reference_figures

    files = needed_resource(published_files, DataUnavailableError, "published EAI outputs")
    f = next(
        x
        for x in files
        if x.module == "transition-modeling" and x.model == GPT4O and x.dataset == dataset
    )
    out = tmp_path / "o"
    argv = ["--dataset", dataset, "--responses", str(f.path), "--output", str(out)]
    code, stdout, _ = _evaluate(capsys, "transition-modeling", *argv, "--no-planner", "--json")
    assert code == 0
    summary = json.loads(stdout)
    section = "transition-modeling" + ("-behavior" if dataset == "behavior" else "")
    stored = reference_figures()["modules"][section][GPT4O]["figures"]
    logic = {k: v for k, v in stored.items() if "planner" not in k}
    assert logic and summary["reading"] == "both"
    counted = summary["reference_counting"]
    assert counted.keys() == logic.keys()
    assert all(abs(counted[k] - v) < 5e-4 for k, v in logic.items())
    assert summary["reference_reading"]["logic_form"] == counted
    assert summary["reference_reading"]["planner_success"] is None
    assert "logic form only" in summary["reference_reading_note"]
    totals: dict[str, list[int]] = {}
    for row in _rows(out):
        assert row["reference_reading"]["logic form"]  # in words, for the report
        for cat, counts in row["reference_verdict"]["logic_form"].items():
            totals[cat] = [a + b for a, b in zip(totals.get(cat, [0, 0, 0]), counts, strict=True)]
    for cat, (tp, fp, fn) in totals.items():
        if tp + fp and tp + fn:
            assert counted[f"{cat}_precision"] == round(100 * tp / (tp + fp), 4)
            assert counted[f"{cat}_recall"] == round(100 * tp / (tp + fn), 4)


# ------------------------------------------------------------- text, formats, defaults
def _subgoal_rows(n: int) -> list[dict[str, Any]]:
    """The first ``n`` answers of GPT-4o's published subgoal file (disjunctions included:
    their draws depend on the answers before)."""
    rows = json.loads(_published("subgoal-decomposition", GPT4O).path.read_text("utf-8"))
    return rows[:n]


@pytest.mark.data
def test_json_lines_and_a_json_list_get_the_same_reference_draws(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The reference draws a disjunct per ``or`` line from one generator over the file
    (re-seeded every 13 answers): the same answers as JSON lines are read in the same
    order and get the same verdicts as the JSON list, and the same as the reference
    reading of the file computed directly."""
    from planproof.metrics import reference_subgoal_decomposition as ref
    from planproof.runs.modules import load_tasks

    rows = _subgoal_rows(30)
    assert any(" or " in r["llm_output"] for r in rows)  # the draws matter here
    as_list, as_lines = tmp_path / "a.json", tmp_path / "a.jsonl"
    as_list.write_text(json.dumps(rows), encoding="utf-8")
    as_lines.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    verdicts = []
    for path in (as_list, as_lines):
        out = tmp_path / path.suffix[1:]
        argv = ["--dataset", "virtualhome", "--responses", str(path), "--output", str(out)]
        code, _, _ = _evaluate(capsys, "subgoal-decomposition", *argv, "--json")
        assert code == 0
        verdicts.append({r["identifier"]: r["reference_verdict"]["reference"] for r in _rows(out)})
    assert verdicts[0] == verdicts[1] and len(verdicts[0]) == 30
    draws = ref.file_draws(rows)
    tasks = {t.identifier: t for t in load_tasks("virtualhome")}
    for ident, v in verdicts[0].items():
        direct = ref.score_answer(tasks[ident], draws[ident])
        assert v["success"] == direct.success and v["executable"] == direct.executable, ident


def _small_file(tmp_path: Path) -> Path:
    rows = json.loads(_published("action-sequencing", GPT4O).path.read_text("utf-8"))[:12]
    path = tmp_path / "answers.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.mark.data
def test_the_text_shows_both_readings_and_the_corrections_by_default(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _small_file(tmp_path)
    base = ["action-sequencing", "--dataset", "virtualhome", "--responses", str(path)]
    code, out, _ = _evaluate(capsys, *base, "--output", str(tmp_path / "both"))
    assert code == 0
    assert "Action sequencing — virtualhome" in out  # planproof's table, the headline
    assert "Reference reading" in out and "planproof − ref." in out
    assert "Corrections, reference reading → planproof" in out and "unexplained" in out
    summary = json.loads((tmp_path / "both" / "summary.json").read_text("utf-8"))
    ref = summary["reference_reading_figures"]
    assert f"{ref['task_success']:.1f}" in out and summary["reading"] == "both"

    code, out, _ = _evaluate(
        capsys, *base, "--output", str(tmp_path / "r"), "--reading", "reference"
    )
    assert code == 0
    assert "Reference reading" in out and "Action sequencing — virtualhome" not in out
    assert "planproof − ref." not in out and "results:" in out

    code, out, _ = _evaluate(
        capsys, *base, "--output", str(tmp_path / "p"), "--reading", "planproof"
    )
    assert code == 0
    assert "Reference reading" not in out and "Action sequencing — virtualhome" in out
    plain = json.loads((tmp_path / "p" / "summary.json").read_text("utf-8"))
    assert plain["reading"] == "planproof" and "reference_reading" not in plain
    assert all("reference_verdict" not in r for r in _rows(tmp_path / "p"))
    # planproof's reading is the same whichever reading stands beside it
    assert plain["goal_evaluation"] == summary["goal_evaluation"]


@pytest.mark.data
def test_behavior_has_no_reference_reading_and_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = ["action-sequencing", "--dataset", "behavior", "--gold", "--limit", "2"]
    code, out, _ = _evaluate(capsys, *base, "--output", str(tmp_path / "o"))
    assert code == 0
    assert "no reference reading for action-sequencing on behavior" in out
    summary = json.loads((tmp_path / "o" / "summary.json").read_text("utf-8"))
    assert summary["reference_reading"] is None and summary["reading"] == "planproof"
    assert "no reference reading" in summary["reference_reading_note"]
    code, out, err = _evaluate(
        capsys, *base, "--output", str(tmp_path / "r"), "--reading", "reference"
    )
    assert code == 2 and out == ""
    assert "no reference reading for action-sequencing on behavior" in err
    assert not (tmp_path / "r" / "summary.json").exists()


# ------------------------------------------------------------------------- bad input
@pytest.mark.parametrize(
    "module", ["goal-interpretation", "action-sequencing", "subgoal-decomposition"]
)
def test_an_unknown_reading_is_a_usage_error(module: str, tmp_path: Path) -> None:
    from tests.cli.helpers import planproof

    r = planproof("evaluate", module, "--dataset", "virtualhome", "--reading", "paper")
    assert r.code == 2 and r.out == ""
    assert (
        "--reading" in r.err and "'paper'" in r.err and "'planproof', 'reference', 'both'" in r.err
    )


@pytest.mark.data
@pytest.mark.parametrize("reading", ["reference", "both"])
@pytest.mark.parametrize(
    "module", ["goal-interpretation", "action-sequencing", "subgoal-decomposition"]
)
def test_a_file_matching_nothing_is_bad_input_in_every_reading(
    module: str, reading: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "r.json"
    path.write_text(json.dumps([{"identifier": "task_11_1", "llm_output": "{}"}]), "utf-8")
    argv = ["--dataset", "virtualhome", "--responses", str(path), "--output", str(tmp_path / "o")]
    code, out, err = _evaluate(capsys, module, *argv, "--reading", reading)
    assert code == 2 and out == ""
    assert err.startswith("planproof: error: ") and "'task_11_1'" in err
    assert not (tmp_path / "o" / "summary.json").exists()


# ----------------------------------------------------------- reproduce --run, planproof run
@pytest.mark.data
def test_reproduce_run_fills_the_reference_reading_column(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The published GPT-4o action-sequencing file evaluated as one's own: in
    ``reproduce eai --run`` its row's ref. reading equals the published GPT-4o row's."""
    f = _published("action-sequencing", GPT4O)
    mine = tmp_path / "mine"
    argv = ["--dataset", "virtualhome", "--responses", str(f.path), "--output", str(mine)]
    assert _evaluate(capsys, "action-sequencing", *argv)[0] == 0
    code = main(
        [
            "reproduce",
            "eai",
            "--modules",
            "action-sequencing",
            "--models",
            GPT4O,
            "--run",
            str(mine),
            "--output",
            str(tmp_path / "rep"),
            "--json",
        ]
    )
    out, _ = capsys.readouterr()
    assert code == 0
    rows = json.loads(out)["sections"]["action-sequencing"]
    published = next(r for r in rows if r["model"] == GPT4O)
    user = next(r for r in rows if r["user_run"])
    assert user["reference_reading"] and user["reference_reading"] == published["reference_reading"]
    assert user["planproof"] == published["planproof"]


@pytest.mark.data
def test_reproduce_run_shows_a_transition_modeling_run_counted_as_the_reference(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A transition-modeling evaluate directory appears in the "reference counting"
    section too: for the published GPT-4o file, the same figures as GPT-4o's row."""
    from planproof.report.leaderboard import TM_COUNTING

    f = _published("transition-modeling", GPT4O)
    mine = tmp_path / "mine"
    argv = ["--dataset", "virtualhome", "--responses", str(f.path), "--output", str(mine)]
    assert _evaluate(capsys, "transition-modeling", *argv, "--no-planner")[0] == 0
    argv = ["reproduce", "eai", "--modules", "transition-modeling", "--models", GPT4O]
    argv += ["--no-planner", "--run", str(mine), "--output", str(tmp_path / "rep"), "--json"]
    assert main(argv) == 0
    sections = json.loads(capsys.readouterr().out)["sections"]
    counted = {r["label"] if r["user_run"] else "published": r for r in sections[TM_COUNTING]}
    assert counted["mine"]["planproof"] == counted["published"]["planproof"]
    assert counted["mine"]["planproof"]["object_states_f1"] > 0
    plain = {
        r["label"] if r["user_run"] else "published": r for r in sections["transition-modeling"]
    }
    assert plain["mine"]["planproof"]["object_states_f1"] == pytest.approx(
        plain["published"]["planproof"]["object_states_f1"]
    )


def test_a_run_records_the_reference_reading(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``planproof run`` with the built-in planner agent: summary.json carries the reference
    reading (its figures, the corrections), results.jsonl each task's verdict, and the
    terminal one line of it under the headline."""
    out = tmp_path / "run"
    argv = ["run", "--model", "planner", "--module", "action-sequencing"]
    argv += ["--dataset", "virtualhome", "--limit", "3", "--output", str(out)]
    assert main([*argv, "--cache", str(tmp_path / "cache.sqlite3")]) == 0
    text = capsys.readouterr().out
    assert "reference reading (virtualhome-eval 0.1.1's rules): task success" in text
    summary = json.loads((out / "summary.json").read_text("utf-8"))
    assert summary["reading"] == "both"
    assert summary["reference_reading"]["tasks"] == 3
    ref, fixes = summary["reference_reading"], summary["corrections"]
    assert summary["reference_reading_figures"] == figures("action-sequencing", ref)
    # the tasks the reference's gold test leaves out are the corrections' "evaluated"
    assert ref["evaluated"] + fixes["total"].get("evaluated", 0) == 3
    assert fixes["unexplained"] == 0
    rows = _rows(out)
    assert len(rows) == 3 and all("reference" in r["reference_verdict"] for r in rows)
    assert all(r["reference_reading"]["verdict"] for r in rows)


@pytest.mark.data
@pytest.mark.parametrize(
    ("module", "options"),
    [
        ("subgoal-decomposition", ["--depth", "1", "--max-states", "5"]),
        ("goal-interpretation", ["--timeout", "5"]),
    ],
)
def test_the_modules_options_apply_to_planproofs_reading_in_every_reading(
    module: str, options: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """planproof's reading with the module's own options (subgoal search bounds, goal
    interpretation's Z3 checks) is the same whether or not the reference's stands beside
    it."""
    rows = json.loads(_published(module, GPT4O).path.read_text("utf-8"))[:8]
    path = tmp_path / "a.json"
    path.write_text(json.dumps(rows), encoding="utf-8")
    base = ["--dataset", "virtualhome", "--responses", str(path), *options]
    for reading in ("planproof", "both"):
        argv = [*base, "--reading", reading, "--output", str(tmp_path / reading)]
        assert _evaluate(capsys, module, *argv)[0] == 0
    own, both = (_rows(tmp_path / r) for r in ("planproof", "both"))
    ours = [{k: v for k, v in r.items() if not k.startswith("reference_")} for r in both]
    assert ours == own
    if module == "goal-interpretation":  # the Z3 checks ran in both readings
        assert all(r["logic"] is not None for r in own)


def test_the_run_line_says_why_the_reference_calls_name_id_answers_hallucinations() -> None:
    """Over half hallucinations in the reference reading (the planner agent's name, id
    pairs, which the reference's name check rejects) gets the reason on the run's line; a
    reading without that share does not."""
    from planproof.commands.reading_table import HALLUCINATION_HINT, reading_line

    def summary(hallucination: float) -> dict[str, object]:
        grammar = {"parsing": 0.0, "hallucination": hallucination}
        return {
            "reference_reading": {"trajectory_evaluation": {"grammar_error": grammar}},
            "reference_reading_figures": {"task_success": 10.0, "execution_success": 20.0},
        }

    hinted = reading_line("action-sequencing", summary(HALLUCINATION_HINT))
    plain = reading_line("action-sequencing", summary(HALLUCINATION_HINT - 0.1))
    assert hinted is not None and plain is not None
    assert "name, id pairs" in hinted and "hallucinations" in hinted
    assert "name, id pairs" not in plain and plain.endswith("executable 20.0 %")
