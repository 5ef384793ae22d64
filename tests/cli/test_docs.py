"""The documentation matches the code: the README's library snippet prints what its
comment says, the docs cite only files that are in the repository, and the step
numbering convention is stated once."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = sorted((ROOT / "docs").glob("*.md"))


@pytest.mark.data
def test_readme_library_snippet_prints_what_its_comment_shows() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = re.search(r"## Library\n\n```python\n(.*?)```", readme, re.S)
    assert block is not None
    code = block.group(1)
    expected = [ln[2:] for ln in code.splitlines() if ln.startswith("# ")]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "README.md", "exec"), {})  # our own README, not untrusted text
    assert out.getvalue().splitlines() == expected


def test_docs_cite_only_files_in_the_repository() -> None:
    cited = re.compile(r"`([\w./-]+\.md)`")  # .py names may be the reference's own files
    missing = []
    for doc in [ROOT / "README.md", *DOCS]:
        text = doc.read_text(encoding="utf-8")
        assert not re.search(r"\b[Ii]ssue \d", text), f"{doc.name} cites an issue"
        for name in cited.findall(text):
            if name.startswith("benchmarks/results/"):  # written by running a benchmark
                continue
            if not ((ROOT / name).exists() or (ROOT / "docs" / name).exists()):
                missing.append(f"{doc.name}: {name}")
    assert missing == []


def test_step_numbering_is_said_once() -> None:
    said = [d.name for d in DOCS if "0-based in JSON" in d.read_text(encoding="utf-8")]
    assert said == ["cli.md"]
