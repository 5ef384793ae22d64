"""The report reads files only: importing it and building a page loads neither the LLM
client library nor the planning stack."""

from __future__ import annotations

import pytest

from tests.helpers import modules_loaded_by
from tests.report.conftest import Built

pytestmark = pytest.mark.data

HEAVY = ("litellm", "unified_planning", "z3", "openai")


def test_import_and_build_leave_heavy_libraries_out(built: Built) -> None:
    loaded = modules_loaded_by(
        "import planproof.report\n"
        f"html = planproof.report.build_report([__import__('pathlib').Path({str(built.root)!r})])\n"
        "assert len(html) > 1000"
    )
    assert "planproof.report" in loaded and "jinja2" in loaded
    for heavy in HEAVY:
        assert heavy not in loaded, heavy
    assert "planproof.commands" not in loaded
