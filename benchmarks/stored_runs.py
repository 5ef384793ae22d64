"""The command line shared by the scripts that compare a reference reading with the
reference's stored whole-file runs (``compare_reference_reading.py``,
``compare_subgoal_reading.py``, ``compare_tm_reading.py``): ``--data`` (another copy of
the data file, e.g. the one a background run is writing, read only) and ``--models``."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DEFAULT = ROOT / "planproof" / "data" / "reference" / "whole_files.json"


def parser(description: str) -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--data", type=Path, default=DEFAULT)
    ap.add_argument("--models", nargs="*", help="file stems (default: every stored model)")
    return ap


def stored_cells(
    args: argparse.Namespace, module: str
) -> tuple[dict[str, Any], dict[str, Any], Sequence[str]] | None:
    """(the data document, ``module``'s cells, the models asked for), or None after saying
    on stderr why there is nothing to compare (no data file, no such model)."""
    try:
        doc = json.loads(Path(args.data).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        print(f"{args.data}: no whole-file reference verdicts ({exc})", file=sys.stderr)
        return None
    cells: dict[str, Any] = doc.get("cells", {}).get(module, {})
    models = list(args.models or sorted(cells))
    unknown = [m for m in models if m not in cells]
    if unknown or not models:
        print(f"no stored {module} runs for {unknown or 'any model'}", file=sys.stderr)
        return None
    return doc, cells, models
