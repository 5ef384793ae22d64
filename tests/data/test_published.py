"""The published LLM answers (virtualhome-eval 0.1.1 wheel): fetched, verified, extracted."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from planproof.data import DataUnavailableError
from planproof.data.published import FOLDERS, MODELS, VHE_WHEEL, PublishedFile, published_files
from planproof.data.wheels import ensure, verify
from tests.helpers import needed_resource


@pytest.fixture(scope="module")
def files() -> list[PublishedFile]:
    return needed_resource(published_files, DataUnavailableError, "published EAI outputs")


@pytest.mark.data
def test_every_published_cell_and_model_is_extracted(files: list[PublishedFile]) -> None:
    assert len(files) == len(FOLDERS) * len(MODELS) == 75
    sizes: dict[tuple[str, str], set[int]] = {}
    for f in files:
        records = json.loads(f.path.read_text(encoding="utf-8"))
        assert all(set(r) == {"identifier", "llm_output"} for r in records), f.path
        sizes.setdefault((f.module, f.dataset), set()).add(len(records))
    # Every model answered the same task set per cell (the paper's denominators).
    assert sizes == {
        ("goal-interpretation", "virtualhome"): {342},
        ("subgoal-decomposition", "virtualhome"): {338},
        ("action-sequencing", "virtualhome"): {342},
        ("transition-modeling", "virtualhome"): {296},
        ("transition-modeling", "behavior"): {100},
    }


@pytest.mark.data
def test_a_damaged_published_wheel_is_rejected(files: list[PublishedFile], tmp_path: Path) -> None:
    good = ensure(VHE_WHEEL)
    bad = tmp_path / VHE_WHEEL.filename
    bad.write_bytes(good.read_bytes()[:500_000])
    with pytest.raises(DataUnavailableError, match="SHA-256"):
        verify(VHE_WHEEL, bad)
