"""``planproof reproduce eai``: the sweep's cells, the paper-named figures, Kendall's tau,
the side-by-side report, and the command end to end on real published files."""

from __future__ import annotations

import json
import pickle
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from planproof.data import DataUnavailableError
from planproof.data.paper_eai import paper_figure
from planproof.data.published import PublishedFile, published_files
from planproof.report.leaderboard import GROUPS, Row, kendall_tau, render_html, rows_for, taus
from planproof.runs.published_sweep import Cell, evaluate_cell, figures
from tests.helpers import needed_resource

GPT4O = "gpt-4o-2024-05-13"


@pytest.fixture(scope="module")
def files() -> list[PublishedFile]:
    return needed_resource(published_files, DataUnavailableError, "published EAI outputs")


def _subset(files: list[PublishedFile], module: str, tmp: Path, n: int = 12) -> Path:
    f = next(x for x in files if x.module == module and x.model == GPT4O)
    rows = json.loads(f.path.read_text(encoding="utf-8"))[:n]
    out = tmp / f"{module}.json"
    out.write_text(json.dumps(rows), encoding="utf-8")
    return out


@pytest.mark.data
def test_cells_are_plain_picklable_and_scored(files: list[PublishedFile], tmp_path: Path) -> None:
    """A cell is plain data and its result too (an executor sends both between processes);
    the figures carry the paper's metric names."""
    for module in ("goal-interpretation", "action-sequencing", "subgoal-decomposition"):
        cell = Cell(GPT4O, module, "virtualhome", str(_subset(files, module, tmp_path, 6)))
        assert pickle.loads(pickle.dumps(cell)) == cell
        result = evaluate_cell(cell)
        assert pickle.loads(pickle.dumps(result)) == result
        assert result["summary"]["tasks"] == 6 and len(result["tasks"]) == 6
        figs = result["figures"]
        wanted = "overall_f1" if module == "goal-interpretation" else "task_success"
        assert wanted in figs and 0.0 <= figs[wanted] <= 100.0
        for name in figs:  # every figure name is one the paper prints for the module
            assert paper_figure("GPT-4o", module, name) is not None, (module, name)


def test_figures_of_a_transition_modeling_summary() -> None:
    summary = {
        "by_category": {"non-spatial_relations": {"precision": 0.5, "recall": 0.25, "f1": 1 / 3}},
        "planner_by_category": {"object_states": {"planner_found": 0.75, "tasks": 4}},
    }
    figs = figures("transition-modeling", summary)
    assert figs == {
        "non_spatial_relations_precision": 50.0,
        "non_spatial_relations_recall": 25.0,
        "non_spatial_relations_f1": 33.3333,
        "object_states_planner_success": 75.0,
    }


def test_kendall_tau_bounds() -> None:
    assert kendall_tau([1, 2, 3, 4], [10, 20, 30, 40]) == 1.0
    assert kendall_tau([1, 2, 3, 4], [4, 3, 2, 1]) == -1.0
    assert kendall_tau([1, 2], [1, 2]) is None  # too few models to rank
    assert kendall_tau([1, 1, 1], [1, 2, 3]) is None  # a constant column ranks nothing


@given(st.lists(st.integers(0, 100), min_size=3, max_size=15), st.randoms())
def test_tau_is_symmetric_and_bounded(xs: list[int], rnd: object) -> None:
    ys = list(xs)
    rnd.shuffle(ys)  # type: ignore[attr-defined]
    t = kendall_tau(xs, ys)
    assert t == kendall_tau(ys, xs)
    assert t is None or -1.0 <= t <= 1.0


def test_rows_use_the_paper_and_the_reference_and_the_page_escapes() -> None:
    models = [("gpt-4o-2024-05-13", "GPT-4o"), ("llama-3-8b-chat", "Llama 3 8B Instruct")]

    def paper(name: str, module: str, fig: str) -> float | None:
        f = paper_figure(name, module, fig)
        return None if f is None else f.value

    planproof = {"gpt-4o-2024-05-13": {"task_success": 66.1}, "llama-3-8b-chat": {}}
    rows = rows_for(
        "action-sequencing",
        models,
        planproof,
        paper,
        lambda m, s, f: 61.6 if s == models[0][0] else None,
    )
    assert rows[0].paper["task_success"] == 61.6 and rows[1].paper["task_success"] == 21.6
    every = {f for group in GROUPS["action-sequencing"] for f in group}
    assert rows[0].reference == dict.fromkeys(every, 61.6)
    assert rows[1].reference == {}
    hostile = Row("x", "<script>alert(1)</script>", planproof={"task_success": 1.0}, user_run=True)
    page = render_html(
        {"action-sequencing": [*rows, hostile]}, ["note <b>"], taus("action-sequencing", rows)
    )
    assert "<script>alert" not in page and "&lt;script&gt;" in page
    assert "note &lt;b&gt;" in page and "61.6" in page


@pytest.mark.data
def test_reproduce_command_end_to_end(files: list[PublishedFile], tmp_path: Path) -> None:
    """Action sequencing for two models and a user's run directory: the three columns,
    tau, the JSON and the HTML, and every cell cached for the next run."""
    from planproof.cli import main

    run_dir = tmp_path / "myrun" / "action-sequencing-virtualhome"
    run_dir.mkdir(parents=True)
    (run_dir / "summary.json").write_text(
        json.dumps(
            {
                "model": "my-model",
                "module": "action-sequencing",
                "dataset": "virtualhome",
                "goal_evaluation": {"task_success_rate": 12.5},
                "trajectory_evaluation": {"execution_success_rate": 50.0},
            }
        ),
        encoding="utf-8",
    )
    out = tmp_path / "out"
    argv = [
        "reproduce",
        "eai",
        "--modules",
        "action-sequencing",
        "--models",
        "GPT-4o",
        "llama-3-8b-chat",
        "--run",
        str(tmp_path / "myrun"),
        "--output",
        str(out),
        "--workers",
        "1",
    ]
    assert main(argv) == 0
    doc = json.loads((out / "reproduce.json").read_text(encoding="utf-8"))
    rows = {r["label"]: r for r in doc["sections"]["action-sequencing"]}
    assert set(rows) == {"GPT-4o", "Llama 3 8B Instruct", "my-model"}
    assert rows["GPT-4o"]["paper"]["task_success"] == 61.6
    assert 50.0 < rows["GPT-4o"]["planproof"]["task_success"] < 80.0
    assert rows["my-model"]["user_run"] and rows["my-model"]["planproof"]["task_success"] == 12.5
    assert "action-sequencing/json.loads" in doc["sections"]
    html = (out / "report.html").read_text(encoding="utf-8")
    assert "my-model" in html and "<svg" in html
    # bad input: an unknown model is refused with exit 2
    assert main(["reproduce", "eai", "--models", "no-such-model", "--output", str(out)]) == 2


@pytest.mark.data
def test_subgoal_search_memo_changes_no_verdict(files: list[PublishedFile], tmp_path: Path) -> None:
    """Two models' answers scored with the search memo warm (shared subgoals searched once)
    give exactly the verdicts of a cold run; the memo is filled and reused."""
    import planproof.metrics.subgoal_decomposition as sd

    paths = []
    for model in (GPT4O, "mistral-large-2402"):
        f = next(x for x in files if x.module == "subgoal-decomposition" and x.model == model)
        rows = json.loads(f.path.read_text(encoding="utf-8"))[:8]
        p = tmp_path / f"{model}.json"
        p.write_text(json.dumps(rows), encoding="utf-8")
        paths.append(p)
    cells = [
        Cell(m, "subgoal-decomposition", "virtualhome", str(p))
        for m, p in zip((GPT4O, "mistral-large-2402"), paths, strict=True)
    ]
    cold = []
    for c in cells:
        sd._MEMO.clear()
        cold.append(evaluate_cell(c))
    sd._MEMO.clear()
    warm = [evaluate_cell(c) for c in cells]
    assert sum(len(m) for m in sd._MEMO.values()) > 0
    again = [evaluate_cell(c) for c in cells]
    for a, b, c in zip(cold, warm, again, strict=True):
        assert a["tasks"] == b["tasks"] == c["tasks"]
        assert a["summary"]["subgoals"]["reached"] == c["summary"]["subgoals"]["reached"]
        assert a["figures"] == b["figures"] == c["figures"]


@pytest.mark.data
def test_transition_modeling_counted_as_the_reference_equals_its_column(
    files: list[PublishedFile], tmp_path: Path
) -> None:
    """GPT-4o, whole file, no planner: the section that counts the logic form as the
    reference does shows planproof's figures equal to the reference code's stored ones
    (and planproof's own clause F1 beside them in the main section)."""
    from planproof.cli import main
    from planproof.report.leaderboard import TM_COUNTING

    out = tmp_path / "out"
    argv = ["reproduce", "eai", "--modules", "transition-modeling", "--models", "GPT-4o"]
    assert main([*argv, "--no-planner", "--output", str(out), "--workers", "1"]) == 0
    doc = json.loads((out / "reproduce.json").read_text(encoding="utf-8"))
    (counted,) = doc["sections"][TM_COUNTING]
    f1s = [f for group in GROUPS[TM_COUNTING] for f in group]
    assert len(f1s) == 5
    for fig in f1s:
        assert counted["planproof"][fig] == pytest.approx(counted["reference"][fig], abs=1e-4)
        assert abs(counted["paper"][fig] - counted["reference"][fig]) <= 0.1
    (own,) = doc["sections"]["transition-modeling"]
    assert own["planproof"]["object_orientation_f1"] > own["reference"]["object_orientation_f1"]
    # the planner was not run: no planner-success figure of planproof's (not 0.0)
    assert not [k for k in own["planproof"] if k.endswith("_planner_success")]
    assert round(own["reference"]["object_states_planner_success"], 1) == 71.9  # the paper's


@pytest.mark.data
def test_tables_on_a_pipe_keep_their_figure_names(
    files: list[PublishedFile],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Captured output is no terminal: the table is printed wide, not cut to 80 columns
    ("over… prec…"); a ``COLUMNS`` the user set still wins."""
    from planproof.cli import main

    argv = ["reproduce", "eai", "--modules", "goal-interpretation", "--models", "GPT-4o"]
    argv += ["--workers", "1", "--output", str(tmp_path / "out")]
    monkeypatch.delenv("COLUMNS", raising=False)
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "overall precision" in out and "over…" not in out
    monkeypatch.setenv("COLUMNS", "80")
    assert main(argv) == 0
    assert "overall precision" not in capsys.readouterr().out  # cut to the user's 80
