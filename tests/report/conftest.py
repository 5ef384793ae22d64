"""Run directories built once per session with the real evaluators (see rundirs.py):
gold and mutated answers side by side for every module, a third model on VirtualHome
action sequencing whose run was cut short (no results.jsonl, a truncated responses line)
and whose name is markup, and the page built from all of them."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pytest

from planproof.report import build_report
from tests.report.rundirs import MUTANTS, gold_answer, tm_tasks, write_run

EVIL_MODEL = "<svg onload=alert(4)>"
SPECS = (  # module, dataset, tasks
    ("action-sequencing", "virtualhome", 10),
    ("action-sequencing", "behavior", 6),
    ("goal-interpretation", "virtualhome", 6),
    ("subgoal-decomposition", "virtualhome", 5),
    ("transition-modeling", "virtualhome", 4),
)


@dataclass(frozen=True)
class Built:
    root: Path
    dirs: dict[tuple[str, str, str], Path]  # (module, dataset, model) → run dir
    partial: Path


@pytest.fixture(scope="session")
def built(eai_wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Built:
    from planproof.simulators.behavior.tasks import load_behavior_tasks
    from planproof.simulators.virtualhome import load_virtualhome_tasks

    root = tmp_path_factory.mktemp("runs")
    tasks = {"virtualhome": load_virtualhome_tasks(), "behavior": load_behavior_tasks()}
    dirs: dict[tuple[str, str, str], Path] = {}
    for module, dataset, n in SPECS:
        pool = tasks[dataset]
        chosen = (tm_tasks(pool) if module == "transition-modeling" else list(pool))[:n]
        for model, answer in (("gold", gold_answer(module)), ("mutant", MUTANTS[module])):
            path = root / f"{module}-{dataset}-{model}"
            write_run(path, model=model, module=module, tasks=chosen, answer=answer)
            dirs[(module, dataset, model)] = path
    partial = root / "action-sequencing-virtualhome-partial"
    write_run(
        partial,
        model=EVIL_MODEL,
        module="action-sequencing",
        tasks=list(tasks["virtualhome"])[:4],
        answer=gold_answer("action-sequencing"),
    )
    (partial / "results.jsonl").unlink()
    lines = (partial / "responses.jsonl").read_text(encoding="utf-8").splitlines()
    lines[-1] = lines[-1][: len(lines[-1]) // 2]  # killed mid-write
    (partial / "responses.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return Built(root, dirs, partial)


@pytest.fixture(scope="session")
def page(built: Built) -> str:
    return build_report([built.root])


def read_jsonl(path: Path) -> list[dict[str, object]]:
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            out.append(json.loads(line))
        except json.JSONDecodeError:
            continue
    return out
