"""The LLM answers behind the EAI paper's tables, as published on PyPI.

The ``virtualhome-eval==0.1.1`` wheel (MIT) ships, under ``virtualhome_eval/llm_response/``,
the outputs of 15 models for the four VirtualHome modules and for BEHAVIOR transition
modeling: one JSON list of ``{"identifier", "llm_output"}`` per model and module. planproof
fetches that one pinned wheel like the task data (:mod:`planproof.data.wheels`), reads these
data members only, and writes each file once into ``<cache>/published/<module>-<dataset>/``,
where every ``evaluate`` command reads it as an ordinary responses file.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from planproof.boundary import replace_text
from planproof.data.cache import DataUnavailableError, cache_dir
from planproof.data.wheels import PinnedWheel, open_pinned

VHE_VERSION = "0.1.1"
VHE_WHEEL = PinnedWheel(
    distribution="virtualhome-eval",
    version=VHE_VERSION,
    sha256="a4e244f423edfc0da2ec7b7daf48f2fca8af00afe6f2af07b8f1e53d8c79de37",
    folder="published",
    what="published EAI LLM outputs",
    size_hint="~27 MB",
    required=(("virtualhome_eval/llm_response/", "_outputs.json"),),
)
RESPONSES_DIR = "virtualhome_eval/llm_response/"

FOLDERS: dict[tuple[str, str], str] = {
    ("goal-interpretation", "virtualhome"): "goal_interpretation",
    ("subgoal-decomposition", "virtualhome"): "subgoal_decomposition",
    ("action-sequencing", "virtualhome"): "action_sequence",
    ("transition-modeling", "virtualhome"): "transition_modeling",
    ("transition-modeling", "behavior"): "transition_modeling_behavior",
}
"""(module, dataset) → folder under ``llm_response/``: the cells the wheel publishes."""

MODELS: dict[str, str] = {
    "claude-3-haiku-20240307": "Claude-3 Haiku",
    "claude-3-opus-20240229": "Claude-3 Opus",
    "claude-3-sonnet-2024022": "Claude-3 Sonnet",
    "cohere-command-r": "Cohere Command R",
    "cohere-command-r-plus": "Cohere Command R+",
    "gemini-1.0-pro": "Gemini 1.0 Pro",
    "gemini-1.5-flash-preview-0514": "Gemini 1.5 Flash",
    "gemini-1.5-pro-preview-0409": "Gemini 1.5 Pro",
    "gpt-3.5-turbo-0125": "GPT-3.5-turbo",
    "gpt-4-turbo-2024-04-09": "GPT-4-turbo",
    "gpt-4o-2024-05-13": "GPT-4o",
    "llama-3-70b-chat": "Llama 3 70B Instruct",
    "llama-3-8b-chat": "Llama 3 8B Instruct",
    "mistral-large-2402": "Mistral Large",
    "mixtral-8x22b-instruct-v0.1": "Mixtral 8x22B MoE",
}
"""File stem in the wheel (``<stem>_outputs.json``; ``claude-3-sonnet-2024022`` is
spelt so there) → the model's name in the paper's tables."""

FORMAT = 1
"""Bump when the layout of the extracted files changes: they are written again."""


@dataclass(frozen=True)
class PublishedFile:
    """One published responses file: a model's answers for one module on one dataset."""

    module: str
    dataset: str
    model: str
    path: Path

    @property
    def display_name(self) -> str:
        return MODELS.get(self.model, self.model)


def published_dir() -> Path:
    return cache_dir() / "published"


def _member(folder: str, model: str) -> str:
    return f"{RESPONSES_DIR}{folder}/{model}_outputs.json"


def _extract() -> None:
    """Write every published file into the cache (once; a stamp file is written last)."""
    root = published_dir()
    with open_pinned(VHE_WHEEL) as wheel:
        for (module, dataset), folder in FOLDERS.items():
            for model in MODELS:
                records = wheel.read_json(_member(folder, model))
                if not isinstance(records, list):
                    raise DataUnavailableError(
                        f"{_member(folder, model)} is not a JSON list of responses"
                    )
                target = root / f"{module}-{dataset}" / f"{model}.json"
                text = json.dumps(records, ensure_ascii=False, indent=1)
                replace_text(target, text, durable=True)
    replace_text(root / "stamp.json", json.dumps(_stamp()), durable=True)


def _stamp() -> dict[str, object]:
    return {"format": FORMAT, "wheel": VHE_WHEEL.filename, "sha256": VHE_WHEEL.sha256}


def ensure_published() -> Path:
    """The directory of extracted published files, fetching the wheel on first use."""
    root = published_dir()
    try:
        current = json.loads((root / "stamp.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        current = None
    if current != _stamp():
        _extract()
    return root


def published_files(module: str | None = None, dataset: str | None = None) -> list[PublishedFile]:
    """Every published (module, dataset, model) file, in the order of :data:`FOLDERS`
    and :data:`MODELS`, filtered by ``module`` / ``dataset`` when given."""
    root = ensure_published()
    return [
        PublishedFile(m, d, model, root / f"{m}-{d}" / f"{model}.json")
        for (m, d) in FOLDERS
        if (module is None or m == module) and (dataset is None or d == dataset)
        for model in MODELS
    ]
