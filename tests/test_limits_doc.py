"""docs/limits.md is the one place the input limits are documented: every value in its
table must be the value in the code, and every bound of the boundary must be listed."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

from planproof.boundary import limits

DOC = Path(__file__).resolve().parents[1] / "docs" / "limits.md"
_ROW = re.compile(r"^\| `(\w+)` \| (\d+) \| `([\w.]+)` \|", re.MULTILINE)


def test_every_documented_value_is_the_code_value() -> None:
    rows = _ROW.findall(DOC.read_text(encoding="utf-8"))
    assert len(rows) >= 10
    for name, value, module in rows:
        assert getattr(importlib.import_module(module), name) == int(value), (module, name)


def test_every_boundary_limit_is_documented() -> None:
    text = DOC.read_text(encoding="utf-8")
    for name in limits.__all__:
        assert f"`{name}`" in text, name
    assert f"= {limits.MAX_SECONDS:g}" in text
